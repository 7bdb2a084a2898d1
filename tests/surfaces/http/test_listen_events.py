"""A listening 2026-07-28 client is told when the tools it may see change: the owner edits
a caller's scopes in the tokens file, and ``tools_list_changed`` arrives on the
``subscriptions/listen`` stream; the client lists its tools again and sees the new ones.
Through the official Python client against a real ``hoard serve --http``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ToolsListChanged

from .conftest import HttpServer

pytestmark = pytest.mark.anyio


def set_scopes(tokens_file: Path, name: str, scopes: list[str]) -> None:
    """Edit the tokens file as an owner would by hand (a new file moved into place, 0600)."""
    data = json.loads(tokens_file.read_text(encoding="utf-8"))
    for entry in data["callers"]:
        if entry["name"] == name:
            entry["scopes"] = scopes
    fresh = tokens_file.with_name(tokens_file.name + ".new")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(fresh, tokens_file)


async def test_a_scope_change_reaches_a_listening_client_as_tools_list_changed(
    hoard_http: Callable[..., HttpServer],
) -> None:
    server = hoard_http(reader="read")
    if not server.tokens_option:
        pytest.skip("edits a tokens file by hand; a shared store's callers change by command")
    headers = {"Authorization": f"Bearer {server.tokens['reader']}"}
    hc = httpx2.AsyncClient(headers=headers, timeout=30.0)
    c = Client(streamable_http_client(server.url, http_client=hc), mode="auto")
    async with hc, c, c.listen(tools_list_changed=True) as sub:
        before = {t.name for t in (await c.list_tools()).tools}
        set_scopes(server.tokens_file, "reader", ["read", "write"])
        with anyio.fail_after(30):
            event = await sub.__anext__()
        after = {t.name for t in (await c.list_tools()).tools}
    assert isinstance(event, ToolsListChanged)
    assert "vault_write" not in before
    assert "vault_write" in after
    assert before < after
