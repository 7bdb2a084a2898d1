"""Wikilinks that name a note by a frontmatter alias, through the MCP client: they resolve,
say so, count as backlinks, report a shared alias as ambiguous, and survive a move."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture
def linked(write_note: Callable[..., Path]) -> None:
    write_note("tech/hue-bridge.md", "Philips bridge", extra="aliases: [Hue Bridge, Café Lamp]\n")
    write_note("tech/desk.md", "Desk", "Wired to [[Hue Bridge]] and [[cafe lamp|the lamp]].")


async def links(hoard: Hoard, ok: Any, path: str) -> dict[str, Any]:
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        return ok(await c.call_tool("vault_links", {"path": path}))  # type: ignore[no-any-return]


async def test_a_bare_alias_link_resolves_to_the_note_and_says_it_went_by_alias(
    linked: None, hoard: Hoard, ok: Any
) -> None:
    data = await links(hoard, ok, "tech/desk.md")
    out = {o["target"]: o for o in data["outgoing"]}
    assert out["Hue Bridge"]["resolved_path"] == "tech/hue-bridge.md"
    assert out["Hue Bridge"]["broken"] is False
    assert out["Hue Bridge"]["resolved_by"] == "alias"
    assert out["cafe lamp"]["resolved_path"] == "tech/hue-bridge.md"  # case and accents folded
    assert out["cafe lamp"]["resolved_by"] == "alias"
    assert data["broken"] == []


async def test_a_note_linked_by_its_alias_lists_the_linker_among_its_backlinks(
    linked: None, hoard: Hoard, ok: Any
) -> None:
    data = await links(hoard, ok, "tech/hue-bridge.md")
    assert data["backlinks"] == ["tech/desk.md"]


async def test_an_alias_two_notes_share_is_ambiguous_and_names_both_notes(
    write_note: Callable[..., Path], open_hoard: Callable[..., Hoard], ok: Any
) -> None:
    write_note("home/lamp-a.md", "Lamp A", extra="aliases: [Reading Lamp]\n")
    write_note("office/lamp-b.md", "Lamp B", extra="aliases: [reading lamp]\n")
    write_note("home/desk.md", "Desk", "Turn on [[Reading Lamp]].")
    hoard = open_hoard()
    data = await links(hoard, ok, "home/desk.md")
    (link,) = data["outgoing"]
    assert link["broken"] is True
    assert link["resolved_path"] is None
    assert link["resolved_by"] is None
    assert link["ambiguous"] == ["home/lamp-a.md", "office/lamp-b.md"]
    assert data["broken"] == ["Reading Lamp"]
    assert (await links(hoard, ok, "home/lamp-a.md"))["backlinks"] == []


async def test_a_file_name_wins_over_another_notes_alias(
    write_note: Callable[..., Path], open_hoard: Callable[..., Hoard], ok: Any
) -> None:
    write_note("tech/hue.md", "The hue note")
    write_note("tech/bridge.md", "Bridge", extra="aliases: [hue]\n")
    write_note("tech/desk.md", "Desk", "See [[hue]] and [[tech/hue]].")
    hoard = open_hoard()
    out = (await links(hoard, ok, "tech/desk.md"))["outgoing"]
    assert [(o["resolved_path"], o["resolved_by"]) for o in out] == [
        ("tech/hue.md", "name"),
        ("tech/hue.md", "path"),
    ]


async def test_an_alias_link_still_resolves_after_its_note_moves_and_is_left_as_written(
    linked: None, hoard: Hoard, ok: Any, vault: Path
) -> None:
    desk_before = (vault / "tech/desk.md").read_bytes()
    revision = hashlib.sha256((vault / "tech/hue-bridge.md").read_bytes()).hexdigest()
    async with Client(HoardMCP(hoard, WRITER).server) as c:
        moved = ok(
            await c.call_tool(
                "vault_move",
                {
                    "path": "tech/hue-bridge.md",
                    "new_path": "home/bridge.md",
                    "expected_revision": revision,
                },
            )
        )
    assert moved["status"] == "moved"
    assert (vault / "tech/desk.md").read_bytes() == desk_before
    out = {o["target"]: o for o in (await links(hoard, ok, "tech/desk.md"))["outgoing"]}
    assert out["Hue Bridge"]["resolved_path"] == "home/bridge.md"
    assert out["Hue Bridge"]["resolved_by"] == "alias"
    assert "tech/desk.md" in (await links(hoard, ok, "home/bridge.md"))["backlinks"]


async def test_a_protected_note_sharing_an_alias_is_never_named_to_a_caller_who_cannot_see_it(
    write_note: Callable[..., Path], open_hoard: Callable[..., Hoard], ok: Any, vault: Path
) -> None:
    write_note("secret/plan.md", "Plan", extra="aliases: [Big Plan]\n")
    write_note("tech/plan-notes.md", "Notes", extra="aliases: [big plan]\n")
    write_note("tech/desk.md", "Desk", "See [[Big Plan]].")
    (vault / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    hoard = open_hoard()
    async with Client(HoardMCP(hoard, OWNER).server) as c:
        owner = ok(await c.call_tool("vault_links", {"path": "tech/desk.md"}))
    assert owner["outgoing"][0]["ambiguous"] == ["secret/plan.md", "tech/plan-notes.md"]
    data = await links(hoard, ok, "tech/desk.md")
    assert "secret" not in str(data)
    (link,) = data["outgoing"]
    assert (link["resolved_path"], link["resolved_by"], link["ambiguous"]) == (
        "tech/plan-notes.md",
        "alias",
        [],
    )
