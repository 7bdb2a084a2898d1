"""Token revocation against a real ``hoard serve --http``: a replayed rotated refresh token
revokes every token of its grant and the owner's Activity page says so."""

from __future__ import annotations

from collections.abc import Callable

import httpx2
import pytest

from .conftest import HttpServer
from .test_oauth import REDIRECT, authorize_url, consent, credentials, exchange, mcp_status, pkce

pytestmark = pytest.mark.anyio


def register_confidential(http: httpx2.Client, server: HttpServer) -> dict[str, str]:
    r = http.post(
        f"{server.base}/register",
        json={
            "redirect_uris": [REDIRECT],
            "client_name": "Confidential Connector",
            "token_endpoint_auth_method": "client_secret_post",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    return credentials(r)


def sign_in(
    http: httpx2.Client, server: HttpServer, client: dict[str, str], caller: str
) -> dict[str, str]:
    """The owner consents for ``client`` as ``caller``; the tokens the code is exchanged for."""
    verifier, challenge = pkce()
    back = consent(http, server, authorize_url(server, client["client_id"], challenge, "s"), caller)
    r = exchange(http, server, client, back["code"], verifier)
    assert r.status_code == 200, r.text
    return dict(r.json())


def refresh(
    http: httpx2.Client, server: HttpServer, client: dict[str, str], token: str
) -> httpx2.Response:
    form = {"grant_type": "refresh_token", "refresh_token": token} | client
    return http.post(f"{server.base}/token", data=form)


async def test_a_replayed_rotated_refresh_token_revokes_every_token_of_its_grant(
    hoard_http: Callable[..., HttpServer],
) -> None:
    server = hoard_http(owner="admin", reader="read")
    with httpx2.Client(timeout=30.0) as http:
        client = register_confidential(http, server)
        first = sign_in(http, server, client, "stolen")
        other = sign_in(http, server, client, "bystander")
        # The legitimate client rotates: its newer tokens work, the old refresh token is spent.
        fresh = refresh(http, server, client, first["refresh_token"]).json()
        assert mcp_status(http, server, fresh["access_token"]) == 200
        # A copy of the old refresh token comes back: refused, and the whole family dies.
        replay = refresh(http, server, client, first["refresh_token"])
        assert replay.status_code == 400
        assert replay.json()["error"] == "invalid_grant"
        assert mcp_status(http, server, fresh["access_token"]) == 401
        newer = refresh(http, server, client, fresh["refresh_token"])
        assert newer.status_code == 400
        assert newer.json()["error"] == "invalid_grant"
        # Another grant of the same client and the static tokens are untouched.
        assert mcp_status(http, server, other["access_token"]) == 200
        assert refresh(http, server, client, other["refresh_token"]).status_code == 200
        assert mcp_status(http, server, server.tokens["reader"]) == 200
        # The owner (signed in to the web app while consenting) sees it in the activity.
        page = http.get(f"{server.base}/activity", params={"tool": "oauth_refresh_reuse"})
        assert page.status_code == 200
        assert "oauth_refresh_reuse" in page.text
        assert "grant revoked" in page.text
        assert "by stolen" in page.text
        assert "by bystander" not in page.text
    assert "rotated refresh token was presented again" in server.log()
