"""Parts of notes through the MCP SDK's client: vault_read of a section or a block names its
byte range, and vault_edit's replace_block edits the block that was read."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
NOTE = (
    "---\ntitle: Lamp\ntype: note\nstatus: draft\ntags: [home, light]\nupdated: 2026-03-01\n"
    "---\n## Log\n- bought\n- flickers since Mönday ^flicker\n- third\n\n## Next\nMore.\n"
)


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    (tmp_path / "v" / "tech").mkdir(parents=True)
    (tmp_path / "v" / "tech" / "lamp.md").write_bytes(NOTE.encode())
    with Hoard(tmp_path / "v", tmp_path / "state") as h:
        yield h


async def test_read_a_block_then_replace_it_with_replace_block(hoard: Hoard) -> None:
    file = hoard.vault.root / "tech" / "lamp.md"
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        r = await c.call_tool("vault_read", {"path": "tech/lamp.md", "block": "^flicker"})
        assert not r.is_error, r.content
        data = r.structured_content
        part = data["part"]
        assert data["content"].encode() == file.read_bytes()[part["start"] : part["end"]]
        assert data["content"] == "- flickers since Mönday ^flicker\n"
        edit = {"op": "replace_block", "block": "flicker", "text": "- fixed: new driver"}
        args = {"path": "tech/lamp.md", "edits": [edit], "expected_revision": data["revision"]}
        w = await c.call_tool("vault_edit", args)
    assert not w.is_error, w.content
    raw = file.read_bytes()
    assert w.structured_content["revision"] == hashlib.sha256(raw).hexdigest()
    assert b"- bought\n- fixed: new driver ^flicker\n- third\n" in raw


async def test_read_a_section_by_heading_and_a_missing_one(hoard: Hoard, tool_error) -> None:
    file = hoard.vault.root / "tech" / "lamp.md"
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        r = await c.call_tool("vault_read", {"path": "tech/lamp.md", "heading": "log"})
        missing = await c.call_tool("vault_read", {"path": "tech/lamp.md", "heading": "Gone"})
    part = r.structured_content["part"]
    assert part["kind"] == "heading" and part["name"] == "log"
    assert file.read_bytes()[part["start"] : part["end"]].startswith(b"## Log\n- bought")
    assert r.structured_content["content"].endswith("- third\n\n")
    error = tool_error(missing)
    assert error["error"] == "not_found" and "no heading 'Gone'" in error["message"]
