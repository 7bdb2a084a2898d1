"""The per-request time budget seen through MCP (issue 18 item 4): a call that runs past
``limits.request_time_ms`` answers with what it has, labeled, instead of running on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hoard.app.freshness import STAT_WALK_INTERVAL_S
from hoard.app.hoard import Hoard
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import make_vault, wait_until

pytestmark = pytest.mark.anyio

LINKS = 200_000
"""Enough links that indexing the note alone takes longer than the 50 ms budget (the call
brings the index up to date first, inside its budget)."""


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    notes = {"a.md": "---\ntitle: A\n---\nAlpha and beta.\n"}
    root = make_vault(tmp_path / "vault", notes, config="[limits]\nrequest_time_ms = 50\n")
    with Hoard(root, tmp_path / "state") as h:
        yield h


def _changed_underneath(root: Path) -> None:
    """An outside editor writes a huge note and many small ones: the next call re-indexes."""
    links = " ".join(f"[[n{i}]]" for i in range(LINKS))
    (root / "hub.md").write_text(f"---\ntitle: Hub\n---\nalpha {links}\n")
    for i in range(300):
        (root / f"n{i}.md").write_text(f"---\ntitle: N{i}\n---\nalpha note {i}\n")


def content(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_links_past_the_budget_answer_what_they_read_with_a_time_budget_warning(
    hoard: Hoard,
) -> None:
    _changed_underneath(hoard.vault.root)
    async with Client(HoardMCP(hoard, hoard.owner).server) as c:
        t0 = time.monotonic()
        r = content(await c.call_tool("vault_links", {"path": "hub.md"}))
        took = time.monotonic() - t0
    assert r["truncated"] is True
    assert r["next_offset"] is None
    assert [w["kind"] for w in r["warnings"]] == ["time_budget"]
    assert r["warnings"][0]["budget_ms"] == 50
    assert took < 60  # it stopped; it did not resolve 200,000 links


async def test_a_search_past_the_budget_is_labeled_not_run_on(hoard: Hoard) -> None:
    _changed_underneath(hoard.vault.root)
    # Without a watcher a search walks the vault for changes at most once a second: wait
    # until the next search is due to walk (and so to index the new notes in its budget).
    wait_until(lambda: time.monotonic() - hoard.keeper._last_walk >= STAT_WALK_INTERVAL_S)
    async with Client(HoardMCP(hoard, hoard.owner).server) as c:
        r = content(await c.call_tool("vault_search", {"query": "alpha", "limit": 5}))
    assert r["error"] is None
    assert r["engine"] == "fts5"
    assert "time_budget" in [w["kind"] for w in r["warnings"]]
