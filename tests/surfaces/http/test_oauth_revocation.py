"""Token revocation against a real ``hoard serve --http``: a replayed rotated refresh token
revokes every token of its grant and the owner's Activity page says so; ``/revoke`` serves
public clients (no secret) and confidential ones (their secret), and only for their own
tokens."""

from __future__ import annotations

from collections.abc import Callable

import httpx2
import pytest

from .conftest import HttpServer
from .test_oauth import REDIRECT, authorize_url, consent, credentials, exchange, mcp_status, pkce

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(module_hoard_http: Callable[..., HttpServer]) -> HttpServer:
    """One server for the module: no test stops it, and each one's OAuth callers, clients
    and tokens are its own (what a test revokes, no other test holds)."""
    return module_hoard_http(owner="admin", reader="read")


def register_public(http: httpx2.Client, server: HttpServer) -> dict[str, str]:
    """A client registered without a secret, as the MCP Inspector and hosted connectors do."""
    r = http.post(
        f"{server.base}/register",
        json={
            "redirect_uris": [REDIRECT],
            "client_name": "Public Connector",
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    assert r.status_code == 201, r.text
    assert r.json().get("client_secret") is None
    return {"client_id": r.json()["client_id"]}


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
    server: HttpServer,
) -> None:
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


async def test_a_public_client_revokes_its_own_access_and_refresh_tokens(
    server: HttpServer,
) -> None:
    with httpx2.Client(timeout=30.0) as http:
        meta = http.get(f"{server.base}/.well-known/oauth-authorization-server").json()
        assert "none" in meta["revocation_endpoint_auth_methods_supported"]
        client = register_public(http, server)
        # Revoking the access token revokes its refresh token with it.
        tokens = sign_in(http, server, client, "inspector")
        assert mcp_status(http, server, tokens["access_token"]) == 200
        r = http.post(f"{server.base}/revoke", data={"token": tokens["access_token"]} | client)
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "no-store"
        assert mcp_status(http, server, tokens["access_token"]) == 401
        gone = refresh(http, server, client, tokens["refresh_token"])
        assert gone.status_code == 400
        assert gone.json()["error"] == "invalid_grant"
        # And the other way round: the refresh token takes its access token along.
        tokens = sign_in(http, server, client, "inspector2")
        hint = {"token_type_hint": "refresh_token"}
        r = http.post(
            f"{server.base}/revoke", data={"token": tokens["refresh_token"]} | hint | client
        )
        assert r.status_code == 200, r.text
        assert mcp_status(http, server, tokens["access_token"]) == 401
        assert refresh(http, server, client, tokens["refresh_token"]).json()["error"] == (
            "invalid_grant"
        )
        # A token hoard never issued (or one already revoked) is a 200, nothing more.
        for token in ("hoard_at_madeup", tokens["access_token"]):
            r = http.post(f"{server.base}/revoke", data={"token": token} | client)
            assert r.status_code == 200, r.text
        # No token at all is a malformed request; an unknown client is not a client.
        assert http.post(f"{server.base}/revoke", data=client).json()["error"] == (
            "invalid_request"
        )
        r = http.post(f"{server.base}/revoke", data={"token": "x", "client_id": "nobody"})
        assert r.status_code == 401
        assert r.json()["error"] == "invalid_client"


async def test_a_confidential_client_needs_its_secret_and_no_client_revokes_anothers_token(
    server: HttpServer,
) -> None:
    with httpx2.Client(timeout=30.0) as http:
        confidential = register_confidential(http, server)
        public = register_public(http, server)
        mine = sign_in(http, server, confidential, "confidential")
        theirs = sign_in(http, server, public, "public")
        # Without its secret, or with a wrong one, a confidential client is refused.
        no_secret = {"client_id": confidential["client_id"]}
        wrong = no_secret | {"client_secret": "not-the-secret"}
        for creds in (no_secret, wrong):
            r = http.post(f"{server.base}/revoke", data={"token": mine["access_token"]} | creds)
            assert r.status_code == 401, r.text
            assert r.json()["error"] == "invalid_client"
        assert mcp_status(http, server, mine["access_token"]) == 200
        # A token issued to another client is refused (RFC 7009 §2.1) and stays valid, both ways.
        for token, creds in (
            (theirs["access_token"], confidential),
            (theirs["refresh_token"], confidential),
            (mine["access_token"], public),
        ):
            r = http.post(f"{server.base}/revoke", data={"token": token} | creds)
            assert r.status_code == 400, r.text
            assert r.json()["error"] == "invalid_grant"
        assert mcp_status(http, server, theirs["access_token"]) == 200
        assert mcp_status(http, server, mine["access_token"]) == 200
        assert refresh(http, server, public, theirs["refresh_token"]).status_code == 200
        # With its secret, the confidential client revokes its own.
        r = http.post(f"{server.base}/revoke", data={"token": mine["access_token"]} | confidential)
        assert r.status_code == 200, r.text
        assert mcp_status(http, server, mine["access_token"]) == 401
