"""``tools/list`` shows a caller only the tools its scopes allow: per HTTP session (the
token's caller) and per ``--as`` caller over stdio, through the official client."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from hoard.adapters.tokens import TokenStore
from tests.helpers import EXAMPLE_VAULT, hoard_env
from tests.surfaces.http.conftest import HttpServer

pytestmark = pytest.mark.anyio

READ_TOOLS = {
    "vault_search",
    "vault_read",
    "vault_list",
    "vault_links",
    "vault_policy",
    "vault_request_access",
    "vault_proposals",
    "vault_history",
    "claim_get",
    "claim_list",
    "synthesis_status",
    "read_code",
    "vault_tags",  # issue 20
}
WRITE_TOOLS = {
    "vault_edit",  # issue 20
    "vault_move",
    "vault_write",
    "vault_file_note",
    "vault_recover",
    "vault_archive",
    "vault_restore",
    "claim_record",
    "synthesis_register",
}
CONFIRM_TOOLS = {"vault_confirm", "vault_reject"}


async def tools_of(url: str, token: str, mode: str) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30.0) as hc,
        Client(streamable_http_client(url, http_client=hc), mode=mode) as c,
    ):
        return {t.name: t for t in (await c.list_tools()).tools}


@pytest.fixture(scope="module")
def server(module_hoard_http: Callable[..., HttpServer]) -> HttpServer:
    """One server for the module: no test here stops it or changes a note."""
    return module_hoard_http(reader="read", writer="read,write", clerk="read,write,confirm")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_each_http_caller_is_listed_only_the_tools_its_scopes_allow(
    server: HttpServer, mode: str
) -> None:
    reader = await tools_of(server.url, server.tokens["reader"], mode)
    writer = await tools_of(server.url, server.tokens["writer"], mode)
    clerk = await tools_of(server.url, server.tokens["clerk"], mode)
    assert set(reader) >= READ_TOOLS
    # Everything a reader is shown changes no note.
    for name, tool in reader.items():
        assert name == "vault_request_access" or tool.annotations.read_only_hint, name
    assert set(writer) >= READ_TOOLS | WRITE_TOOLS
    assert set(writer) - set(reader) >= WRITE_TOOLS
    assert not CONFIRM_TOOLS & set(writer)
    assert set(clerk) - set(writer) == CONFIRM_TOOLS


async def test_a_hidden_tool_called_by_name_is_still_refused_as_forbidden(
    server: HttpServer,
) -> None:
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {server.tokens['reader']}"}, timeout=30.0
        ) as hc,
        Client(streamable_http_client(server.url, http_client=hc)) as c,
    ):
        result = await c.call_tool("vault_write", {"path": "x/new.md", "content": "hi\n"})
    assert result.is_error
    assert json.loads(result.content[0].text)["error"] == "forbidden"  # type: ignore[union-attr]


async def test_a_stdio_server_run_as_a_read_only_caller_lists_only_reading_tools(
    hoard_bin: Path, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.json"
    TokenStore(tokens).add("reader", "read", "propose")
    params = StdioServerParameters(
        command=str(hoard_bin),
        args=[
            "serve",
            "--vault",
            str(EXAMPLE_VAULT),
            "--state-dir",
            str(tmp_path / "state"),
            "--tokens",
            str(tokens),
            "--as",
            "reader",
        ],
        env=hoard_env(tmp_path),
    )
    async with Client(params) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) >= READ_TOOLS
    assert not (WRITE_TOOLS | CONFIRM_TOOLS) & set(tools)
