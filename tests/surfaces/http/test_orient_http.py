"""The orientation surface over Streamable HTTP, through the official Python client against
one real ``hoard serve --http`` shared by the module: vault_recent names a write and who
made it, ``prompts/get orient`` briefs the caller, ChatGPT's ``search`` and ``fetch``
answer their documented shapes with links to the served web app, and a client subscribed
to a note is sent ``notifications/resources/updated`` within 2 s of a write (and nothing
after it unsubscribes)."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.helpers import note_text

from .conftest import HttpServer

pytestmark = pytest.mark.anyio

PROMISE = 2.0
"""Seconds within which a change is announced."""

CHATGPT_SEARCH_KEYS = {"id", "title", "url"}
CHATGPT_FETCH_KEYS = {"id", "title", "text", "url", "metadata"}


@pytest.fixture(scope="module")
def server(module_hoard_http: Callable[..., HttpServer]) -> HttpServer:
    return module_hoard_http(reader="read", writer="read,write direct")


class Inbox:
    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))


@asynccontextmanager
async def connect(
    server: HttpServer, name: str, inbox: Inbox | None = None
) -> AsyncIterator[Client]:
    """A 2025-era client of ``name`` (the era of ``resources/subscribe``)."""
    headers = {"Authorization": f"Bearer {server.tokens[name]}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30.0) as hc:
        transport = streamable_http_client(server.url, http_client=hc)
        async with Client(transport, mode="legacy", message_handler=inbox) as c:
            yield c


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    out: dict[str, Any] = result.structured_content
    return out


async def add_line(c: Client, path: str, line: str) -> None:
    read = data(await c.call_tool("vault_read", {"path": path}))
    new = read["content"].rstrip("\n") + f"\n\n{line}\n"
    args = {"path": path, "content": new, "expected_revision": read["revision"]}
    data(await c.call_tool("vault_write", args))


async def test_vault_recent_names_a_write_and_who_made_it(server: HttpServer) -> None:
    async with connect(server, "reader") as reader, connect(server, "writer") as writer:
        start = data(await reader.call_tool("vault_recent", {}))
        made = note_text("Recent over HTTP", "Written through the served MCP endpoint.")
        data(await writer.call_tool("vault_write", {"path": "log/http.md", "content": made}))
        since = {"cursor": start["latest_cursor"]}  # the first page of a vault's history
        after = data(await reader.call_tool("vault_recent", since))
    assert [(ch["path"], ch["kind"], ch["who"]) for ch in after["changes"]] == [
        ("log/http.md", "created", "writer")
    ]
    assert after["changes"][0]["title"] == "Recent over HTTP"
    assert start["more"] and after["cursor"].startswith("r1.")


async def test_the_orient_prompt_briefs_the_caller(server: HttpServer) -> None:
    async with connect(server, "reader") as c:
        listed = {p.name for p in (await c.list_prompts()).prompts}
        got = await c.get_prompt("orient", {})
    assert {"orient", "file-a-note", "review-before-write"} <= listed
    content = got.messages[0].content
    assert isinstance(content, types.TextContent)
    assert content.text.startswith("hoard briefing for reader")
    assert "cursor=r1." in content.text


async def test_chatgpt_search_and_fetch_answer_their_shapes_with_web_app_links(
    server: HttpServer,
) -> None:
    async with connect(server, "reader") as c:
        found = await c.call_tool("search", {"query": "hue bridge"})
        assert not found.is_error, found.content
        hits = json.loads(found.content[0].text)["results"]
        doc = await c.call_tool("fetch", {"id": hits[0]["id"]})
    assert hits and all(set(h) == CHATGPT_SEARCH_KEYS for h in hits)
    assert all(h["url"] == f"{server.base}/n/{h['id']}" for h in hits)
    assert "tech/hue-bridge.md" in {h["id"] for h in hits}
    assert not doc.is_error, doc.content
    body = json.loads(doc.content[0].text)
    assert set(body) == CHATGPT_FETCH_KEYS
    assert body["id"] == hits[0]["id"] and body["url"] == hits[0]["url"]
    assert body["text"] and body["title"] == hits[0]["title"]
    async with httpx2.AsyncClient() as web:
        page = await web.get(body["url"])
    assert page.status_code in (200, 303), "the url opens the note in the served web app"


async def test_a_subscribed_client_hears_of_a_write_within_two_seconds_then_not(
    server: HttpServer,
) -> None:
    inbox = Inbox()
    uri = "vault://tech/git-tips.md"
    async with connect(server, "reader", inbox) as reader, connect(server, "writer") as writer:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the SDK marks the 2025-era calls deprecated
            await reader.subscribe_resource(uri)
        await add_line(writer, "tech/git-tips.md", "Rebase with care.")
        with anyio.fail_after(PROMISE):
            while uri not in inbox.uris:
                await anyio.sleep(0.02)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await reader.unsubscribe_resource(uri)
        await anyio.sleep(1.0)  # a notice already on its way when it unsubscribed may land
        inbox.uris.clear()
        await add_line(writer, "tech/git-tips.md", "Rebase with even more care.")
        await anyio.sleep(PROMISE + 0.5)
    assert inbox.uris == []
