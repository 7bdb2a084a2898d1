"""``hoard serve --http --public-url URL``: behind a TLS proxy or tunnel, the public name is
an allowed Host and the OAuth issuer, so a remote connector can discover and sign in."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx2

from .conftest import HttpServer
from .test_oauth import mcp_status

PUBLIC = "https://hoard.example.test"


def test_the_public_url_is_the_issuer_and_an_allowed_host(
    hoard_http: Callable[..., HttpServer],
) -> None:
    server = hoard_http("--public-url", PUBLIC, reader="read")
    proxied = {"Host": "hoard.example.test"}
    with httpx2.Client(timeout=30.0, headers=proxied) as http:
        meta = http.get(f"{server.base}/.well-known/oauth-authorization-server")
        assert meta.status_code == 200
        assert meta.json()["issuer"] == PUBLIC
        assert meta.json()["token_endpoint"] == f"{PUBLIC}/token"
        resource = http.get(f"{server.base}/.well-known/oauth-protected-resource/mcp").json()
        assert resource["resource"] == f"{PUBLIC}/mcp"
        assert resource["authorization_servers"] == [PUBLIC]
        r = http.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 401
        assert (
            f'resource_metadata="{PUBLIC}/.well-known/oauth-protected-resource/mcp"'
            in (r.headers["www-authenticate"])
        )
        assert mcp_status(http, server, server.tokens["reader"]) == 200
        # A browser page of the public site may call it; another site may not.
        origin = {"Origin": PUBLIC}
        same_site = http.get(
            f"{server.base}/.well-known/oauth-authorization-server", headers=origin
        )
        assert same_site.status_code == 200
        foreign = http.get(server.url, headers={"Origin": "https://evil.example"})
        assert foreign.status_code == 403
    with httpx2.Client(timeout=30.0) as http:
        # The loopback address still works, and any other name is still refused.
        assert mcp_status(http, server, server.tokens["reader"]) == 200
        other = http.get(f"{server.base}/healthz", headers={"Host": "evil.example"})
        assert other.status_code == 421


def test_behind_an_https_public_url_the_web_app_links_there_and_its_cookies_are_secure(
    hoard_http: Callable[..., HttpServer],
) -> None:
    server = hoard_http("--public-url", PUBLIC)
    link = re.search(r"open (\S+)/signin/link\?code=(\S+)", server.log())
    assert link is not None, server.log()
    assert link.group(1) == PUBLIC
    proxied = {"Host": "hoard.example.test"}  # the proxy speaks plain http to hoard
    with httpx2.Client(base_url=server.base, headers=proxied, timeout=30.0) as http:
        form = http.get("/signin")
        assert "; secure" in form.headers["set-cookie"].lower()
        signed_in = http.get(f"/signin/link?code={link.group(2)}")
        assert signed_in.status_code == 303
        cookie = signed_in.headers.get_list("set-cookie")
        session = next(c for c in cookie if c.startswith("hoard_session="))
        assert "; secure" in session.lower() and "httponly" in session.lower()


def test_without_a_public_url_the_cookies_follow_the_connection(
    hoard_http: Callable[..., HttpServer],
) -> None:
    server = hoard_http()
    link = re.search(r"open (\S+)/signin/link\?code=(\S+)", server.log())
    assert link is not None and link.group(1) == server.base
    with httpx2.Client(base_url=server.base, timeout=30.0) as http:
        signed_in = http.get(f"/signin/link?code={link.group(2)}")
        session = next(
            c for c in signed_in.headers.get_list("set-cookie") if c.startswith("hoard_session=")
        )
        assert "secure" not in session.lower()  # plain http on loopback: a browser drops it
