"""hoard as its own OAuth 2.1 issuer, end to end against a real ``hoard serve --http``:
discovery, dynamic registration, authorization code with PKCE through the owner's consent
page, a tool call with the issued token, refresh, revocation, and the refusals."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from .conftest import HttpServer, hoard_env, served_callers

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture(scope="module")
def server(module_hoard_http: Callable[..., HttpServer]) -> HttpServer:
    """One server for the module: no test stops it, and each one's OAuth callers, clients
    and grants are its own (what a test revokes, no other test holds)."""
    return module_hoard_http(owner="admin", reader="read")


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def web_sign_in(http: httpx2.Client, server: HttpServer, token: str) -> httpx2.Response:
    """Sign in to the web app ``hoard serve`` mounts (its form's double-submit token)."""
    page = http.get(f"{server.base}/signin")
    pre = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert pre is not None, page.text
    return http.post(f"{server.base}/signin", data={"csrf": pre.group(1), "token": token})


def hidden(page: httpx2.Response, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page.text)
    assert found is not None, page.text
    return found.group(1)


def consent(
    http: httpx2.Client,
    server: HttpServer,
    authorize_url: str,
    caller: str,
    scopes: tuple[str, ...] = ("read",),
    admin: str | None = None,
    folders: dict[str, str] | None = None,
) -> dict[str, str]:
    """Play the owner in a browser: open the authorization URL, sign in to the web app when
    the consent page asks for it (or type an admin token when the server has no web app),
    allow; the query the client is sent back with."""
    r = http.get(authorize_url)
    assert r.status_code == 302, r.text
    page_url = r.headers["location"]
    assert page_url.startswith(f"{server.base}/oauth/consent?request=")
    page = http.get(page_url)
    if 'http-equiv="refresh"' in page.text:  # the web app's owner is not signed in yet
        signin = http.get(page_url + "&seen=1")
        assert signin.status_code == 303
        assert signin.headers["location"].startswith("/signin?next=%2Foauth%2Fconsent")
        assert web_sign_in(http, server, admin or server.tokens["owner"]).status_code == 303
        page = http.get(page_url)
    assert page.status_code == 200
    request_id = parse_qs(urlsplit(page_url).query)["request"][0]
    form = {
        "request": request_id,
        "caller": caller,
        "scopes": list(scopes),
        "write_mode": "propose",
        "decision": "allow",
        **(folders or {}),
    }
    if 'name="admin_token"' in page.text:
        form["admin_token"] = admin or server.tokens["owner"]
    else:
        form["csrf"] = hidden(page, "csrf")
    back = http.post(f"{server.base}/oauth/consent", data=form)
    assert back.status_code == 303, back.text
    location = back.headers["location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def register(http: httpx2.Client, server: HttpServer, redirect: str = REDIRECT) -> httpx2.Response:
    return http.post(
        f"{server.base}/register",
        json={
            "redirect_uris": [redirect],
            "client_name": "Test Connector",
            "token_endpoint_auth_method": "client_secret_post",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )


def authorize_url(server: HttpServer, client_id: str, challenge: str, state: str) -> str:
    query = httpx2.QueryParams(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "scope": "read",
            "resource": server.url,
        }
    )
    return f"{server.base}/authorize?{query}"


def exchange(
    http: httpx2.Client, server: HttpServer, client: dict[str, str], code: str, verifier: str
) -> httpx2.Response:
    return http.post(
        f"{server.base}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": verifier,
        }
        | client,
    )


def credentials(registered: httpx2.Response) -> dict[str, str]:
    """The client_id and client_secret a registration returned, as token-request fields."""
    assert registered.status_code == 201, registered.text
    body = registered.json()
    return {"client_id": body["client_id"], "client_secret": body["client_secret"]}


def mcp_status(http: httpx2.Client, server: HttpServer, token: str) -> int:
    """The status of an ``initialize`` request made with ``token``: 200 or 401."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hoard-tests", "version": "0"},
        },
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    return http.post(server.url, json=body, headers=headers).status_code


async def test_the_owner_limits_an_oauth_caller_to_folders_at_consent(
    server: HttpServer,
) -> None:
    with httpx2.Client(timeout=30.0) as http:
        client = credentials(register(http, server))
        verifier, challenge = pkce()
        url = authorize_url(server, client["client_id"], challenge, "s")
        folders = {"read": "tech/**", "write": "tech/agent/**"}
        back = consent(http, server, url, "foldered", ("read", "write"), folders=folders)
        access = exchange(http, server, client, back["code"], verifier).json()["access_token"]
    policy = await policy_with(server, access)
    assert (policy["read"], policy["write"]) == (["tech/**"], ["tech/agent/**"])


async def policy_with(server: HttpServer, token: str) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30.0) as hc,
        Client(streamable_http_client(server.url, http_client=hc)) as c,
    ):
        result = await c.call_tool("vault_policy", {})
    assert result.structured_content is not None
    return result.structured_content


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def test_the_official_client_discovers_registers_signs_in_and_calls_a_tool(
    server: HttpServer,
) -> None:
    sent_back: dict[str, str] = {}
    browser = httpx2.Client(timeout=30.0)

    async def redirect_handler(url: str) -> None:
        sent_back.update(consent(browser, server, url, "connector"))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(
            code=sent_back["code"], state=sent_back.get("state"), iss=sent_back.get("iss")
        )

    storage = MemoryStorage()
    auth = OAuthClientProvider(
        server.url,
        OAuthClientMetadata(
            redirect_uris=[REDIRECT],
            client_name="Official Client",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage,
        redirect_handler,
        callback_handler,
    )
    with browser:
        async with (
            httpx2.AsyncClient(auth=auth, timeout=30.0) as hc,
            Client(streamable_http_client(server.url, http_client=hc)) as c,
        ):
            names = {t.name for t in (await c.list_tools()).tools}
            policy = await c.call_tool("vault_policy", {})
    assert storage.tokens is not None and storage.tokens.refresh_token
    assert storage.client is not None and storage.client.client_id
    assert sent_back["iss"] == server.base
    assert policy.structured_content is not None
    assert policy.structured_content["caller"] == "connector"
    assert policy.structured_content["scopes"] == ["read"]
    # A read-only grant: no write tool is offered.
    assert "vault_search" in names
    assert "vault_write" not in names
    # The static tokens keep working next to OAuth.
    assert (await policy_with(server, server.tokens["owner"]))["caller"] == "owner"


async def test_discovery_registration_pkce_refresh_and_revocation(
    server: HttpServer,
) -> None:
    with httpx2.Client(timeout=30.0) as http:
        # Discovery: the 401 names the resource metadata, which names the issuer.
        r = http.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 401
        assert "resource_metadata=" in r.headers["www-authenticate"]
        resource = http.get(f"{server.base}/.well-known/oauth-protected-resource/mcp").json()
        assert resource["resource"] == server.url
        assert resource["authorization_servers"] == [server.base]
        assert http.get(f"{server.base}/.well-known/oauth-protected-resource").json() == resource
        meta = http.get(f"{server.base}/.well-known/oauth-authorization-server").json()
        assert meta["issuer"] == server.base
        assert meta["code_challenge_methods_supported"] == ["S256"]
        assert meta["registration_endpoint"] == f"{server.base}/register"
        assert meta["revocation_endpoint"] == f"{server.base}/revoke"

        client = credentials(register(http, server))
        client_id = client["client_id"]
        verifier, challenge = pkce()
        back = consent(http, server, authorize_url(server, client_id, challenge, "s1"), "web")
        assert back["state"] == "s1"
        # A wrong verifier is refused and does not use the code up.
        wrong = exchange(http, server, client, back["code"], pkce()[0])
        assert wrong.status_code == 400
        assert wrong.json()["error"] == "invalid_grant"
        tokens = exchange(http, server, client, back["code"], verifier).json()
        assert tokens["token_type"] == "Bearer"
        assert tokens["expires_in"] > 0
        assert tokens["scope"] == "read"
        access, refresh = tokens["access_token"], tokens["refresh_token"]
        assert (await policy_with(server, access))["caller"] == "web"

        # Refresh rotates both tokens; the old refresh token is spent.
        form = {"grant_type": "refresh_token", "refresh_token": refresh} | client
        fresh = http.post(f"{server.base}/token", data=form).json()
        assert fresh["access_token"] != access
        assert fresh["refresh_token"] != refresh
        assert mcp_status(http, server, fresh["access_token"]) == 200
        # Sent again, the spent refresh token is a replay: refused, and every token of the
        # grant dies with it, the newer ones included.
        again = http.post(f"{server.base}/token", data=form)
        assert again.status_code == 400
        assert again.json()["error"] == "invalid_grant"
        assert mcp_status(http, server, fresh["access_token"]) == 401
        newer = form | {"refresh_token": fresh["refresh_token"]}
        assert http.post(f"{server.base}/token", data=newer).json()["error"] == "invalid_grant"
        activity = http.get(f"{server.base}/activity", params={"tool": "oauth_refresh_reuse"})
        assert "grant revoked" in activity.text
        assert "by web" in activity.text

        # Revocation: the access token is refused at once, and its refresh token with it.
        verifier, challenge = pkce()
        back = consent(http, server, authorize_url(server, client_id, challenge, "s2"), "web2")
        fresh = exchange(http, server, client, back["code"], verifier).json()
        assert mcp_status(http, server, fresh["access_token"]) == 200
        r = http.post(f"{server.base}/revoke", data={"token": fresh["access_token"]} | client)
        assert r.status_code == 200
        assert mcp_status(http, server, fresh["access_token"]) == 401
        form["refresh_token"] = fresh["refresh_token"]
        assert http.post(f"{server.base}/token", data=form).status_code == 400
        # The static token of another caller is untouched.
        assert mcp_status(http, server, server.tokens["reader"]) == 200


async def test_revoking_the_caller_revokes_its_oauth_tokens(
    server: HttpServer, hoard_bin: Path, tmp_path: Path
) -> None:
    with httpx2.Client(timeout=30.0) as http:
        client = credentials(register(http, server))
        client_id = client["client_id"]
        verifier, challenge = pkce()
        back = consent(http, server, authorize_url(server, client_id, challenge, "s"), "doomed")
        access = exchange(http, server, client, back["code"], verifier).json()["access_token"]
        assert mcp_status(http, server, access) == 200
        subprocess.run(
            [str(hoard_bin), "token", "revoke", "doomed", *server.tokens_option],
            check=True,
            capture_output=True,
            env=hoard_env(tmp_path),
        )
        assert mcp_status(http, server, access) == 401


async def test_the_refusals(server: HttpServer) -> None:
    with httpx2.Client(timeout=30.0) as http:
        # Registration: plain http off the machine is not a redirect URI.
        bad = register(http, server, "http://example.com/callback")
        assert bad.status_code == 400
        assert bad.json()["error"] == "invalid_redirect_uri"
        client = credentials(register(http, server))
        client_id = client["client_id"]
        verifier, challenge = pkce()
        # Authorization with a redirect URI the client did not register: no redirect at all.
        url = authorize_url(server, client_id, challenge, "s").replace(
            "127.0.0.1%3A9%2Fcallback", "127.0.0.1%3A9%2Fother"
        )
        r = http.get(url)
        assert r.status_code == 400
        assert "location" not in r.headers
        assert r.json()["error"] == "invalid_request"
        # The consent page asks the owner signed in to the web app: a signed-out answer, an
        # admin token typed in instead, and a wrong CSRF token are refused; a token without
        # the admin scope cannot sign in.
        r = http.get(authorize_url(server, client_id, challenge, "s"))
        page_url = r.headers["location"]
        request_id = parse_qs(urlsplit(page_url).query)["request"][0]
        form = {
            "request": request_id,
            "admin_token": server.tokens["owner"],
            "caller": "sneaky",
            "scopes": ["read"],
            "write_mode": "propose",
            "decision": "allow",
        }
        assert http.post(f"{server.base}/oauth/consent", data=form).status_code == 401
        assert web_sign_in(http, server, server.tokens["reader"]).status_code == 403
        assert web_sign_in(http, server, server.tokens["owner"]).status_code == 303
        page = http.get(page_url)
        assert "Signed in to this vault's web app as" in page.text
        assert 'name="admin_token"' not in page.text
        wrong = http.post(f"{server.base}/oauth/consent", data=form | {"csrf": "forged"})
        assert wrong.status_code == 403
        callers = served_callers(server.tokens_file)
        assert callers.find("sneaky") is None
        callers.close()
        # The owner may deny: the client is told access_denied.
        form["csrf"] = hidden(page, "csrf")
        denied = http.post(f"{server.base}/oauth/consent", data=form | {"decision": "deny"})
        assert denied.status_code == 303
        assert "error=access_denied" in denied.headers["location"]
        # A code works once; a replay is refused and revokes what the code gave.
        back = consent(http, server, authorize_url(server, client_id, challenge, "s"), "once")
        first = exchange(http, server, client, back["code"], verifier)
        assert first.status_code == 200
        replay = exchange(http, server, client, back["code"], verifier)
        assert replay.status_code == 400
        assert replay.json()["error"] == "invalid_grant"
        assert mcp_status(http, server, first.json()["access_token"]) == 401
        # A made-up token is a 401 that says the token is invalid.
        r = http.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": "Bearer hoard_at_madeup"},
        )
        assert r.status_code == 401
        assert 'error="invalid_token"' in r.headers["www-authenticate"]
