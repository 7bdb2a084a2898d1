"""vault_search filters and vault_tags through the MCP SDK's in-memory client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

AGENT = Caller("agent", frozenset({"read"}), "direct")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "v"
    for i, (status, tags) in enumerate([("todo", "a, b"), ("done", "b, c"), ("todo", "c, d")]):
        (root / "tasks").mkdir(parents=True, exist_ok=True)
        (root / "tasks" / f"t{i}.md").write_text(
            f"---\ntitle: Task {i}\ntype: task\nstatus: {status}\ntags: [{tags}]\n"
            f"updated: 2026-03-0{i + 1}\n---\nwater the plants\n",
            encoding="utf-8",
        )
    with Hoard(root, tmp_path / "state") as h:
        yield h


async def test_vault_search_takes_filters_and_lists_without_a_query(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        listed = await c.call_tool(
            "vault_search", {"query": "", "filters": {"status": "todo"}, "limit": 1}
        )
        ranked = await c.call_tool(
            "vault_search", {"query": "plants", "filters": {"tags": ["c"], "status": "done"}}
        )
        bad = await c.call_tool("vault_search", {"query": "", "filters": {"nope": 1}})
    data = listed.structured_content
    assert [h["path"] for h in data["results"]] == ["tasks/t2.md"]
    assert data["next_offset"] == 1
    assert [h["path"] for h in ranked.structured_content["results"]] == ["tasks/t1.md"]
    assert bad.is_error
    assert json.loads(bad.content[0].text)["error"] == "invalid_argument"


async def test_vault_tags_counts_tags(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        result = await c.call_tool("vault_tags", {})
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert result.structured_content["tags"][:2] == [
        {"tag": "b", "count": 2, "source": "frontmatter"},
        {"tag": "c", "count": 2, "source": "frontmatter"},
    ]
    ann = tools["vault_tags"].annotations
    assert ann is not None and ann.read_only_hint is True
