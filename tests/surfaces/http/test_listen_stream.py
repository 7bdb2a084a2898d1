"""The 2026-07-28 listen stream and the 2025 era, through the official Python client, against
a real ``hoard serve --http``.

A 2026 client sends ``server/discover`` and then opens ``subscriptions/listen``, whose answer
is an event stream that stays open until one side leaves. The HTTP guard reads the request
body before the SDK does; after handing it back, every later read must reach the real
connection, or the stream handler believes the client left at once (issue 17, item 1).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
CLEAN_EXIT = (0, -signal.SIGTERM)  # uvicorn re-raises the signal after a graceful stop
FAILURE_MARKS = ("Traceback", "ASGI callable returned without starting response", "ERROR")


def client(url: str, token: str, mode: str) -> tuple[httpx2.AsyncClient, Client]:
    hc = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
    return hc, Client(streamable_http_client(url, http_client=hc), mode=mode)


def assert_clean(log: str) -> None:
    for mark in FAILURE_MARKS:
        assert mark not in log, log


@pytest.mark.parametrize("mode", ["auto", MODERN])
async def test_a_2026_client_opens_a_listen_stream_that_stays_open_and_closes_cleanly(
    hoard_http: Callable[..., Any], mode: str
) -> None:
    server = hoard_http(reader="read")
    hc, c = client(server.url, server.tokens["reader"], mode)
    async with hc, c:
        assert c.protocol_version == MODERN
        async with c.listen(tools_list_changed=True, resources_list_changed=True) as sub:
            assert sub.honored.tools_list_changed is True
            # The stream is open; the same session keeps working next to it.
            names = {t.name for t in (await c.list_tools()).tools}
            policy = await c.call_tool("vault_policy", {})
            # Open means: no event, no end and no loss while nothing changes.
            with anyio.move_on_after(0.5) as window:
                await sub.__anext__()
            assert window.cancelled_caught
        # Leaving the listen block drops that stream; the session lives on.
        again = {t.name for t in (await c.list_tools()).tools}
    assert {"vault_search", "vault_read", "vault_policy"} <= names
    assert again == names
    assert policy.structured_content is not None
    assert policy.structured_content["caller"] == "reader"
    # The client is gone: the server still answers a new one, and stops promptly (a stream
    # that missed the disconnect would hold uvicorn's shutdown forever).
    hc2, c2 = client(server.url, server.tokens["reader"], mode)
    async with hc2, c2, c2.listen(tools_list_changed=True) as sub2:
        assert sub2.honored.tools_list_changed is True
    assert server.stop() in CLEAN_EXIT
    assert_clean(server.log())


async def test_a_2025_client_lists_tools_and_its_get_stream_stays_open(
    hoard_http: Callable[..., Any],
) -> None:
    server = hoard_http(reader="read")
    hc, c = client(server.url, server.tokens["reader"], "legacy")
    async with hc, c:
        assert c.protocol_version != MODERN
        names = {t.name for t in (await c.list_tools()).tools}
        found = await c.call_tool("vault_search", {"query": "hue bridge"})
    assert {"vault_search", "vault_read", "vault_policy"} <= names
    assert not found.is_error
    # The 2025 server-to-client stream is a GET on /mcp within a session.
    headers = {
        "Authorization": f"Bearer {server.tokens['reader']}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hoard-tests", "version": "0"},
        },
    }
    async with httpx2.AsyncClient(timeout=30.0) as raw:
        r = await raw.post(server.url, headers=headers, content=json.dumps(init).encode())
        assert r.status_code == 200
        session = r.headers["mcp-session-id"]
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        r = await raw.post(server.url, headers=headers, content=json.dumps(note).encode())
        assert r.status_code == 202
        get_headers = {k: v for k, v in headers.items() if k != "Content-Type"}
        get_headers["Accept"] = "text/event-stream"
        async with raw.stream("GET", server.url, headers=get_headers) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            with anyio.move_on_after(0.5) as window:
                async for _ in stream.aiter_bytes():
                    break
            assert window.cancelled_caught
    assert server.stop() in CLEAN_EXIT
    assert_clean(server.log())
