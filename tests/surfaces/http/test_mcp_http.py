"""Streamable HTTP at /mcp behind the guard, against one real uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.cli import main as cli
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

CAP = 1024 * 1024  # the default body cap


@dataclass
class Served:
    url: str
    host: str
    token: str
    caller: str
    tokens_file: Path
    vault: Path


@pytest.fixture(scope="module")
def served(
    example_hoard: Hoard,
    shared_example_vault: Path,
    tmp_path_factory: pytest.TempPathFactory,
    http_server: Callable[..., Any],
) -> Served:
    tokens_file = tmp_path_factory.mktemp("http-tokens") / "tokens.json"
    store = TokenStore(tokens_file)
    _, token = store.add("reader-bot", "read", "propose")
    live = http_server(HoardMCP(example_hoard, LOCAL_DEFAULT), store)
    return Served(live.url, live.host, token, "reader-bot", tokens_file, shared_example_vault)


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30.0) as client:
        yield client


def post_mcp(
    http: httpx2.Client,
    served: Served,
    headers: dict[str, str],
    body: Any,
) -> httpx2.Response:
    return http.post(f"{served.url}/mcp", headers=headers, content=json.dumps(body).encode())


async def test_a_valid_token_works_through_the_official_client(served: Served) -> None:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token}"}) as hc,
        Client(streamable_http_client(f"{served.url}/mcp", http_client=hc)) as c,
    ):
        names = {t.name for t in (await c.list_tools()).tools}
        search = await c.call_tool("vault_search", {"query": "hue bridge firmware"})
        policy = await c.call_tool("vault_policy", {})
        error = await c.call_tool("vault_read", {"path": "../x.md"})
        after = await c.call_tool("vault_read", {"path": "tech/hue-bridge.md"})
    assert {"vault_search", "vault_read", "vault_policy"} <= names
    assert not search.is_error
    assert search.structured_content["results"][0]["path"] == "tech/hue-bridge.md"
    # The caller is the token's, not the server's default caller.
    assert policy.structured_content["caller"] == served.caller
    assert policy.structured_content["scopes"] == ["read"]
    assert error.is_error
    assert json.loads(error.content[0].text)["error"] == "path_rejected"
    assert not after.is_error


def test_no_token_is_401(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request, assert_no_internals
) -> None:
    r = post_mcp(http, served, mcp_headers(None), initialize_request)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].lower().startswith("bearer")
    assert r.json()["error"] == "unauthorized"  # the SPEC error object, from core/errors.py
    assert_no_internals(r.text)


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer hoard_not-a-real-token",
        "Token hoard_not-a-real-token",
        "Basic cmVhZGVyLWJvdDpzZWNyZXQ=",
        "bearer",
    ],
)
def test_an_unknown_or_malformed_token_is_401(
    http: httpx2.Client,
    served: Served,
    mcp_headers,
    initialize_request,
    assert_no_internals,
    authorization: str,
) -> None:
    headers = mcp_headers(None) | {"Authorization": authorization}
    r = post_mcp(http, served, headers, initialize_request)
    assert r.status_code == 401
    assert_no_internals(r.text)


def test_the_digest_of_a_token_is_not_a_token(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    stored = json.loads(served.tokens_file.read_text())["callers"][0]["sha256"]
    r = post_mcp(http, served, mcp_headers(stored), initialize_request)
    assert r.status_code == 401


def test_a_valid_token_is_admitted_at_the_http_level(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    r = post_mcp(http, served, mcp_headers(served.token), initialize_request)
    assert r.status_code == 200
    assert r.json()["result"]["serverInfo"]["name"] == "hoard"


def test_a_revoked_token_is_refused_on_the_very_next_request(
    http: httpx2.Client,
    served: Served,
    mcp_headers,
    initialize_request,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HOARD_STORE_URL", raising=False)  # this server checks a tokens file
    tokens = str(served.tokens_file)
    capsys.readouterr()
    assert cli.run(["token", "add", "short-lived", "--tokens", tokens, "--json"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    assert post_mcp(http, served, mcp_headers(token), initialize_request).status_code == 200
    assert cli.run(["token", "revoke", "short-lived", "--tokens", tokens]) == 0
    assert post_mcp(http, served, mcp_headers(token), initialize_request).status_code == 401
    # The other caller is untouched.
    assert post_mcp(http, served, mcp_headers(served.token), initialize_request).status_code == 200


def test_a_revoked_token_is_refused_through_the_token_store_too(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    store = TokenStore(served.tokens_file)
    _, token = store.add("another-short-lived", "read", "propose")
    assert post_mcp(http, served, mcp_headers(token), initialize_request).status_code == 200
    store.revoke("another-short-lived")
    assert post_mcp(http, served, mcp_headers(token), initialize_request).status_code == 401


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1:1", "localhost"])
def test_a_foreign_host_header_is_421(
    http: httpx2.Client,
    served: Served,
    mcp_headers,
    initialize_request,
    assert_no_internals,
    host: str,
) -> None:
    headers = mcp_headers(served.token) | {"Host": host}
    r = post_mcp(http, served, headers, initialize_request)
    assert r.status_code == 421
    assert r.json()["error"] == "misdirected"
    assert_no_internals(r.text)


def test_the_loopback_names_of_this_server_are_accepted_as_host(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    port = served.host.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        headers = mcp_headers(served.token) | {"Host": host}
        assert post_mcp(http, served, headers, initialize_request).status_code == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "https://evil.example:443", "null", "http://127.0.0.1:1"]
)
def test_a_foreign_origin_is_403(
    http: httpx2.Client,
    served: Served,
    mcp_headers,
    initialize_request,
    assert_no_internals,
    origin: str,
) -> None:
    headers = mcp_headers(served.token) | {"Origin": origin}
    r = post_mcp(http, served, headers, initialize_request)
    assert r.status_code == 403
    assert r.json()["error"] == "forbidden"
    assert_no_internals(r.text)


def test_the_servers_own_origin_is_accepted(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    headers = mcp_headers(served.token) | {"Origin": served.url}
    assert post_mcp(http, served, headers, initialize_request).status_code == 200


def test_a_json_rpc_batch_is_400_with_error_code_minus_32600(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request, assert_no_internals
) -> None:
    batch = [initialize_request, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    r = post_mcp(http, served, mcp_headers(served.token), batch)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32600
    assert_no_internals(r.text)
    # Leading white space does not smuggle a batch past the check.
    r = http.post(
        f"{served.url}/mcp",
        headers=mcp_headers(served.token),
        content=b"  \n" + json.dumps(batch).encode(),
    )
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32600


def test_an_oversized_body_with_content_length_is_413(
    http: httpx2.Client, served: Served, mcp_headers, assert_no_internals
) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * (2 * CAP) + b'"}'
    r = http.post(f"{served.url}/mcp", headers=mcp_headers(served.token), content=body)
    assert r.status_code == 413
    assert r.json() == {"error": "too_large", "message": r.json()["message"], "limit": CAP}
    assert_no_internals(r.text)


def test_an_oversized_chunked_body_without_content_length_is_413(
    http: httpx2.Client, served: Served, mcp_headers, assert_no_internals
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    r = http.post(f"{served.url}/mcp", headers=mcp_headers(served.token), content=chunks())
    assert "content-length" not in r.request.headers
    assert r.request.headers["transfer-encoding"] == "chunked"
    assert r.status_code == 413
    assert r.json()["error"] == "too_large"
    assert_no_internals(r.text)


def test_the_server_keeps_serving_after_refusals(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    post_mcp(http, served, mcp_headers(None), initialize_request)
    post_mcp(http, served, mcp_headers(served.token), [initialize_request])
    r = post_mcp(http, served, mcp_headers(served.token), initialize_request)
    assert r.status_code == 200


def test_healthz_answers_without_auth_and_says_nothing_about_the_vault(
    http: httpx2.Client, served: Served
) -> None:
    r = http.get(f"{served.url}/healthz")
    assert r.status_code == 200
    body = r.text
    assert str(served.vault) not in body
    assert served.vault.name not in body
    assert not any(ch.isdigit() for ch in body), body  # no counts, sizes or times
    for word in ("note", "vault", "path", "index", "caller"):
        assert word not in body.lower()


def test_healthz_still_checks_host(http: httpx2.Client, served: Served) -> None:
    r = http.get(f"{served.url}/healthz", headers={"Host": "evil.example"})
    assert r.status_code == 421


def test_no_error_response_carries_a_stack_trace(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request, assert_no_internals
) -> None:
    bodies = [
        http.post(f"{served.url}/mcp", headers=mcp_headers(served.token), content=b"{not json"),
        http.post(f"{served.url}/mcp", headers=mcp_headers(served.token), content=b"null"),
        http.post(
            f"{served.url}/mcp",
            headers=mcp_headers(served.token),
            content=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call"}).encode(),
        ),
        http.get(f"{served.url}/mcp", headers=mcp_headers(served.token)),
        http.delete(f"{served.url}/mcp", headers=mcp_headers(served.token)),
        http.get(f"{served.url}/nowhere", headers=mcp_headers(served.token)),
        http.post(f"{served.url}/mcp", headers={"Authorization": "Bearer x"}, content=b"{}"),
    ]
    for r in bodies:
        assert r.status_code < 500, (r.status_code, r.text)
        assert_no_internals(r.text)


def test_without_strict_mode_a_broken_tokens_file_admits_nobody_but_health_answers(
    http: httpx2.Client, served: Served, mcp_headers, initialize_request
) -> None:
    good = served.tokens_file.read_bytes()
    served.tokens_file.write_bytes(b"{broken")
    try:
        assert http.get(f"{served.url}/healthz").status_code == 200
        r = post_mcp(http, served, mcp_headers(served.token), initialize_request)
        assert r.status_code == 401
    finally:
        tmp = served.tokens_file.with_name(".restore.tmp")
        tmp.write_bytes(good)
        tmp.chmod(0o600)
        tmp.replace(served.tokens_file)
    r = post_mcp(http, served, mcp_headers(served.token), initialize_request)
    assert r.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":77,"method":"tools/list","params":{"x":'
        + b"[" * 5000
        + b"]" * 5000
        + b"}}",
        b'{"jsonrpc":"2.0","id":77,"method":"tools/list","params":'
        + b'{"a":' * 5000
        + b"1"
        + b"}" * 5000
        + b"}",
    ],
    ids=["arrays-5000-deep", "objects-5000-deep"],
)
async def test_a_message_nested_too_deep_is_a_parse_error_with_its_id_and_serving_goes_on(
    served: Served, mcp_headers, assert_no_internals, body: bytes
) -> None:
    async with httpx2.AsyncClient(timeout=30.0) as raw:
        deep = await raw.post(f"{served.url}/mcp", headers=mcp_headers(served.token), content=body)
        not_json = await raw.post(
            f"{served.url}/mcp", headers=mcp_headers(served.token), content=b"{not json"
        )

    assert deep.status_code == not_json.status_code == 400
    assert deep.json()["id"] == 77
    assert deep.json()["error"]["code"] == not_json.json()["error"]["code"] == -32700
    assert_no_internals(deep.text)
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token}"}) as hc,
        Client(streamable_http_client(f"{served.url}/mcp", http_client=hc)) as c,
    ):
        assert "vault_search" in {t.name for t in (await c.list_tools()).tools}
