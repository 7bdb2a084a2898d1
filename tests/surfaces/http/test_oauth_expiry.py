"""Expiry of OAuth codes and access tokens, in-process (real uvicorn on loopback) so the
test can shorten the lifetimes instead of waiting them out."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.oauth.provider import HoardOAuth
from tests.helpers import LiveServer

from .conftest import EXAMPLE_VAULT, HttpServer
from .test_oauth import (
    authorize_url,
    consent,
    credentials,
    exchange,
    mcp_status,
    pkce,
    register,
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[HttpServer, HoardOAuth]]:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    tokens_file = tmp_path / "tokens.json"
    tokens = TokenStore(tokens_file)
    _, owner = tokens.add("owner", "admin", "propose")
    live = LiveServer()
    base = live.url
    port = live.port
    with Hoard(vault, tmp_path / "state") as hoard:
        oauth = HoardOAuth(hoard.grant_store(), tokens, base, f"{base}/mcp")
        mcp = HoardMCP(hoard, LOCAL_DEFAULT)
        live.start(build_app(mcp, tokens, "127.0.0.1", port, oauth=oauth))
        handle = HttpServer(None, port, {"owner": owner}, tokens_file, tmp_path / "x", vault)  # type: ignore[arg-type]
        handle.stopped = True
        try:
            yield handle, oauth
        finally:
            live.stop()
            mcp.close()


def test_an_expired_code_is_refused_and_an_expired_access_token_is_a_401(
    served: tuple[HttpServer, HoardOAuth],
) -> None:
    server, oauth = served
    with httpx2.Client(timeout=30.0) as http:
        client = credentials(register(http, server))
        client_id = client["client_id"]
        verifier, challenge = pkce()
        oauth.code_ttl = 0
        back = consent(http, server, authorize_url(server, client_id, challenge, "s"), "late")
        expired = exchange(http, server, client, back["code"], verifier)
        assert expired.status_code == 400
        assert expired.json()["error"] == "invalid_grant"
        assert "expired" in expired.json()["error_description"]

        oauth.code_ttl = 300
        oauth.access_ttl = 0
        back = consent(http, server, authorize_url(server, client_id, challenge, "s"), "brief")
        tokens = exchange(http, server, client, back["code"], verifier).json()
        assert mcp_status(http, server, tokens["access_token"]) == 401
        # The refresh token outlives it and brings a working access token.
        oauth.access_ttl = 3600
        form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]} | client
        fresh = http.post(f"{server.base}/token", data=form).json()
        assert mcp_status(http, server, fresh["access_token"]) == 200
