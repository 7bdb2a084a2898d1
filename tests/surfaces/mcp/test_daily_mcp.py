"""vault_daily through the MCP SDK's client: found, created, proposed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
PROPOSER = Caller("agent", frozenset({"read", "write"}), "propose")


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "v"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "daily-notes.json").write_text('{"folder": "daily"}')
    with Hoard(root, tmp_path / "state") as h:
        yield h


async def test_vault_daily_creates_then_finds_the_note(hoard: Hoard, ok) -> None:
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        made = ok(await c.call_tool("vault_daily", {"date": "2026-03-05", "create": True}))
        found = ok(await c.call_tool("vault_daily", {"date": "2026-03-05"}))
    assert made["status"] == "written" and made["path"] == "daily/2026-03-05.md"
    assert found["status"] == "found" and found["revision"] == made["revision"]
    assert (hoard.vault.root / "daily" / "2026-03-05.md").is_file()


async def test_vault_daily_in_propose_mode_answers_a_proposal(hoard: Hoard, ok, tool_error):
    async with Client(HoardMCP(hoard, PROPOSER).server) as c:
        r = ok(await c.call_tool("vault_daily", {"date": "2026-03-05", "create": True}))
        bad = tool_error(await c.call_tool("vault_daily", {"date": "yesterday"}))
    assert r["status"] == "proposed" and r["proposal_id"] and r["created"] is False
    assert not (hoard.vault.root / "daily").exists()
    assert bad["error"] == "invalid_argument"
