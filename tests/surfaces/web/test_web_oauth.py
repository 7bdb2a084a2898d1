"""OAuth consent through the web app's owner sign-in, in a real browser: a connector's page
on another site sends the owner to ``/authorize``; the consent page names the client, its
redirect URI and the scopes it asks for, and the signed-in owner approves with the session
(no admin token); a signed-out owner signs in first and comes back to the request."""

from __future__ import annotations

import base64
import hashlib
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2

from .support import Site, sign_in

REDIRECT = "http://127.0.0.1:4999/callback"


def _client(site: Site) -> dict[str, str]:
    r = httpx2.post(
        f"{site.url}/register",
        json={
            "redirect_uris": [REDIRECT],
            "client_name": "Browser Connector",
            "token_endpoint_auth_method": "client_secret_post",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    assert r.status_code == 201, r.text
    return {"client_id": r.json()["client_id"], "client_secret": r.json()["client_secret"]}


def _authorize(site: Site, client_id: str) -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = httpx2.QueryParams(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge.decode().rstrip("="),
            "code_challenge_method": "S256",
            "state": "st8",
            "scope": "read write",
            "resource": f"{site.url}/mcp",
        }
    )
    return f"{site.url}/authorize?{query}", verifier


def _callbacks(page: Any) -> list[str]:
    """Answer the client's redirect URI in the browser itself; the URLs it was sent to."""
    seen: list[str] = []

    def answer(route: Any) -> None:
        seen.append(route.request.url)
        route.fulfill(status=200, content_type="text/plain", body="back at the client")

    page.route("http://127.0.0.1:4999/**", answer)
    return seen


def test_the_signed_in_owner_approves_a_connector_with_the_session(
    browser: Any, site: Site, tmp_path: Path, screenshots: Path
) -> None:
    client = _client(site)
    url, verifier = _authorize(site, client["client_id"])
    start = tmp_path / "connector.html"
    start.write_text(f'<a id="go" href="{url}">Connect hoard</a>', encoding="utf-8")
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in(page, site)
    seen = _callbacks(page)
    page.goto(start.as_uri())  # the connector's page, on another site
    page.click("#go")
    page.wait_for_selector("#allow")
    assert page.inner_text("#client") == "Browser Connector"
    assert page.inner_text("#asked") == "read write"
    assert page.inner_text("#redirect") == REDIRECT
    assert page.inner_text("#who") == "owner"
    assert page.locator("input[name=admin_token]").count() == 0
    page.screenshot(path=str(screenshots / "consent.png"), full_page=True)
    page.fill("#caller", "browser-connector")
    page.uncheck("input[name=scopes][value=write]")
    page.check("input[name=write_mode][value=propose]")
    page.click("#allow")
    page.wait_for_url(f"{REDIRECT}?**")
    back = {k: v[0] for k, v in parse_qs(urlsplit(seen[0]).query).items()}
    assert back["state"] == "st8"
    context.close()
    form = {
        "grant_type": "authorization_code",
        "code": back["code"],
        "redirect_uri": REDIRECT,
        "code_verifier": verifier,
    }
    tokens = httpx2.post(f"{site.url}/token", data=form | client).json()
    assert tokens["scope"] == "read"
    policy = site.mcp(tokens["access_token"], "vault_policy", {}).structured_content
    assert policy is not None
    assert policy["caller"] == "browser-connector"
    assert policy["scopes"] == ["read"]
    assert policy["write_mode"] == "propose"


def test_a_signed_out_owner_signs_in_and_comes_back_to_the_request(
    browser: Any, site: Site
) -> None:
    client = _client(site)
    url, _ = _authorize(site, client["client_id"])
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    seen = _callbacks(page)
    page.goto(url)
    page.wait_for_selector("#token")
    assert "/signin?next=" in page.url
    page.fill("#token", site.owner_token)
    page.click("button[type=submit]")
    page.wait_for_selector("#deny")
    assert page.inner_text("#client") == "Browser Connector"
    page.click("#deny")
    page.wait_for_url(f"{REDIRECT}?**")
    assert "error=access_denied" in seen[0]
    context.close()
