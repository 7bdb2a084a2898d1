"""vault_edit through the MCP SDK's in-memory client: vault_write's result, SPEC error
objects, honest hints."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
NOTE = (
    "---\r\ntitle: Lamp\r\ntype: note\r\nstatus: draft\r\ntags: [home, light]\r\n"
    "updated: 2026-03-01\r\n---\r\n## Log\r\n- bought\r\n"
)


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    (tmp_path / "v" / "tech").mkdir(parents=True)
    (tmp_path / "v" / "tech" / "lamp.md").write_bytes(NOTE.encode())
    with Hoard(tmp_path / "v", tmp_path / "state") as h:
        yield h


def rev(hoard: Hoard) -> str:
    return hashlib.sha256((hoard.vault.root / "tech" / "lamp.md").read_bytes()).hexdigest()


async def call(hoard: Hoard, args: dict[str, Any]) -> Any:
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        return await c.call_tool("vault_edit", args)


async def test_vault_edit_returns_vault_writes_result(hoard: Hoard) -> None:
    before = rev(hoard)
    r = await call(
        hoard,
        {
            "path": "tech/lamp.md",
            "edits": [
                {"op": "append_to_section", "heading": "Log", "text": "- fixed"},
                {"op": "set_fields", "fields": {"status": "active"}},
            ],
            "expected_revision": before,
        },
    )
    assert not r.is_error, r.content
    data = r.structured_content
    assert data["status"] == "written"
    assert (data["previous_revision"], data["revision"]) == (before, rev(hoard))
    raw = (hoard.vault.root / "tech" / "lamp.md").read_bytes()
    assert raw == NOTE.replace("status: draft", "status: active").encode() + b"- fixed\r\n"


@pytest.mark.parametrize(
    ("edits", "code"),
    [
        ([{"op": "replace_section", "heading": "Nope", "text": "x"}], "not_found"),
        ([{"op": "find_replace", "find": "zzz", "replace": "y"}], "invalid_argument"),
        ([{"op": "teleport"}], "invalid_argument"),
        ([{"op": "remove_fields", "keys": ["title"]}], "contract_violation"),
    ],
)
async def test_a_refused_edit_is_a_tool_error_with_the_spec_object(
    hoard: Hoard, edits: list[dict[str, Any]], code: str
) -> None:
    before = (hoard.vault.root / "tech" / "lamp.md").read_bytes()
    r = await call(hoard, {"path": "tech/lamp.md", "edits": edits, "expected_revision": rev(hoard)})
    assert r.is_error
    assert json.loads(r.content[0].text)["error"] == code
    assert (hoard.vault.root / "tech" / "lamp.md").read_bytes() == before


async def test_vault_edit_is_listed_as_a_non_destructive_write(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    ann = tools["vault_edit"].annotations
    assert ann is not None
    assert (ann.read_only_hint, ann.destructive_hint) == (False, False)
    assert "edits" in tools["vault_edit"].input_schema["required"]


async def test_vault_move_through_mcp(hoard: Hoard) -> None:
    (hoard.vault.root / "tech" / "desk.md").write_text("---\ntitle: D\n---\n[[lamp]]\n", "utf-8")
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        dry = await c.call_tool(
            "vault_move",
            {
                "path": "tech/lamp.md",
                "new_path": "home/lamp.md",
                "expected_revision": rev(hoard),
                "dry_run": True,
            },
        )
        moved = await c.call_tool(
            "vault_move",
            {"path": "tech/lamp.md", "new_path": "home/lamp.md", "expected_revision": rev(hoard)},
        )
        again = await c.call_tool(
            "vault_move",
            {"path": "tech/lamp.md", "new_path": "home/x.md", "expected_revision": "0" * 64},
        )
    assert dry.structured_content["status"] == "dry_run"
    assert {f["role"] for f in dry.structured_content["files"]} >= {"note", "old", "index"}
    assert moved.structured_content["status"] == "moved"
    assert (hoard.vault.root / "home" / "lamp.md").exists()
    assert json.loads(again.content[0].text)["error"] == "not_found"
