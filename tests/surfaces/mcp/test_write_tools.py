"""The write tools through the MCP SDK's in-memory client: SPEC result shapes, SPEC error
objects, and honest tool hints."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import sha

pytestmark = pytest.mark.anyio

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
READER = Caller("reader", frozenset({"read"}), "direct")

WRITE_FIELDS = {
    "status",
    "path",
    "revision",
    "previous_revision",
    "proposal_id",
    "expires_at",
    "diff",
    "preflight",
}
WRITE_TOOLS = (
    "vault_write",
    "vault_confirm",
    "vault_reject",
    "vault_file_note",
    "vault_recover",
    "vault_archive",
    "vault_restore",
)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text if result.content else result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error(result: CallToolResult) -> dict[str, Any]:
    """The SPEC error object: the first text content of a tool error, as JSON."""
    assert result.is_error, result.structured_content
    first = result.content[0]
    assert first.type == "text"
    obj = json.loads(first.text)
    assert isinstance(obj, dict)
    assert isinstance(obj["error"], str)
    assert isinstance(obj["message"], str)
    return obj


@pytest.fixture
def lamp(put, note_text) -> bytes:
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    return raw


def server(hoard: Hoard, caller: Caller) -> Any:
    return HoardMCP(hoard, caller).server


async def test_vault_write_returns_the_spec_fields_and_writes(
    lamp, hoard: Hoard, note_text, vault
) -> None:
    new = note_text("Lamp", "A brighter lamp.")
    async with Client(server(hoard, WRITER)) as c:
        data = ok(
            await c.call_tool(
                "vault_write",
                {"path": "tech/lamp.md", "content": new, "expected_revision": sha(lamp)},
            )
        )

    assert set(data) == WRITE_FIELDS
    assert (data["status"], data["path"]) == ("written", "tech/lamp.md")
    assert (data["revision"], data["previous_revision"]) == (sha(new.encode()), sha(lamp))
    assert (vault / "tech" / "lamp.md").read_text(encoding="utf-8") == new


async def test_a_dry_run_returns_the_preflight_object(hoard: Hoard, lamp, note_text) -> None:
    async with Client(server(hoard, WRITER)) as c:
        data = ok(
            await c.call_tool(
                "vault_write",
                {"path": "tech/lamp.md", "content": "# no frontmatter\n", "dry_run": True},
            )
        )

    assert data["status"] == "dry_run"
    pre = data["preflight"]
    assert {"current_revision", "revision_check", "violations", "duplicates", "obligations"} <= set(
        pre
    )
    assert pre["current_revision"] == sha(lamp)
    assert pre["revision_check"] == "exists"
    assert [v["rule"] for v in pre["violations"]] == ["frontmatter_missing"]


@pytest.mark.parametrize(
    ("args", "code", "detail"),
    [
        ({"path": "tech/lamp.md"}, "exists", "current_revision"),
        ({"path": "tech/lamp.md", "expected_revision": "0" * 64}, "conflict", "current_revision"),
        ({"path": "tech/lamp.md", "content": "# bare\n", "expected_revision": "lamp"}, None, None),
        ({"path": "../escape.md"}, "path_rejected", None),
        ({"path": "personal-notes/diary.md", "expected_revision": "diary"}, "private_note", None),
    ],
    ids=["exists", "conflict", "contract_violation", "path_rejected", "private_note"],
)
async def test_a_refused_write_is_a_tool_error_with_the_spec_error_object(
    hoard: Hoard, lamp, put, note_text, snap, args: dict[str, Any], code: str | None, detail
) -> None:
    diary = b"# Diary\n"
    put("personal-notes/diary.md", diary)
    revisions = {"lamp": sha(lamp), "diary": sha(diary)}
    call = {"content": note_text("Lamp", "v2"), **args}
    if call.get("expected_revision") in revisions:
        call["expected_revision"] = revisions[call["expected_revision"]]
    before = (snap("tech/lamp.md"), snap("personal-notes/diary.md"))

    async with Client(server(hoard, WRITER)) as c:
        obj = error(await c.call_tool("vault_write", call))
        # The server keeps serving after a refusal.
        assert ok(await c.call_tool("vault_history", {"path": "tech/lamp.md"}))

    if code is None:
        assert obj["error"] == "contract_violation"
        assert obj["violations"] == [
            {
                "field": "frontmatter",
                "rule": "frontmatter_missing",
                "message": obj["violations"][0]["message"],
            }
        ]
    else:
        assert obj["error"] == code
    if detail:
        assert obj[detail] == sha(lamp)
    assert (snap("tech/lamp.md"), snap("personal-notes/diary.md")) == before


async def test_a_caller_without_write_scope_gets_forbidden(hoard: Hoard, note_text, vault) -> None:
    async with Client(server(hoard, READER)) as c:
        obj = error(
            await c.call_tool("vault_write", {"path": "tech/x.md", "content": note_text("X")})
        )

    assert (obj["error"], obj["scope"]) == ("forbidden", "write")
    assert not (vault / "tech" / "x.md").exists()


async def test_propose_list_confirm_and_confirm_again_through_mcp(
    lamp, hoard: Hoard, note_text, vault
) -> None:
    new = note_text("Lamp", "Proposed words.")
    async with Client(server(hoard, LOCAL_DEFAULT)) as c:
        proposed = ok(
            await c.call_tool(
                "vault_write",
                {"path": "tech/lamp.md", "content": new, "expected_revision": sha(lamp)},
            )
        )
        listed = ok(await c.call_tool("vault_proposals", {}))
        confirmed = ok(await c.call_tool("vault_confirm", {"proposal_id": proposed["proposal_id"]}))
        again = error(await c.call_tool("vault_confirm", {"proposal_id": proposed["proposal_id"]}))

    assert set(proposed) == WRITE_FIELDS
    assert proposed["status"] == "proposed"
    assert len(proposed["proposal_id"]) == 8
    assert proposed["expires_at"].endswith("Z")
    assert proposed["diff"].startswith("--- a/tech/lamp.md\n+++ b/tech/lamp.md\n")
    [p] = listed["proposals"]
    assert (p["proposal_id"], p["path"], p["diff"]) == (
        proposed["proposal_id"],
        "tech/lamp.md",
        proposed["diff"],
    )
    assert (confirmed["status"], confirmed["revision"]) == ("written", sha(new.encode()))
    assert again["error"] == "proposal_not_found"
    assert (vault / "tech" / "lamp.md").read_text(encoding="utf-8") == new


async def test_reject_through_mcp_writes_nothing(hoard: Hoard, lamp, note_text, snap) -> None:
    before = snap("tech/lamp.md")
    async with Client(server(hoard, LOCAL_DEFAULT)) as c:
        proposed = ok(
            await c.call_tool(
                "vault_write",
                {
                    "path": "tech/lamp.md",
                    "content": note_text("Lamp", "x"),
                    "expected_revision": sha(lamp),
                },
            )
        )
        rejected = ok(await c.call_tool("vault_reject", {"proposal_id": proposed["proposal_id"]}))
        unknown = error(await c.call_tool("vault_reject", {"proposal_id": "zzzzzzzz"}))

    assert rejected == {"proposal_id": proposed["proposal_id"], "status": "rejected"}
    assert unknown["error"] == "proposal_not_found"
    assert snap("tech/lamp.md") == before


async def test_vault_history_by_path_and_by_revision_have_the_spec_shapes(
    hoard: Hoard, lamp, note_text
) -> None:
    async with Client(server(hoard, WRITER)) as c:
        ok(
            await c.call_tool(
                "vault_write",
                {
                    "path": "tech/lamp.md",
                    "content": note_text("Lamp", "v2"),
                    "expected_revision": sha(lamp),
                },
            )
        )
        error(await c.call_tool("vault_write", {"path": "tech/lamp.md", "content": "x\n"}))
        by_path = ok(await c.call_tool("vault_history", {"path": "tech/lamp.md"}))
        rid = by_path["revisions"][0]["revision_id"]
        by_rev = ok(await c.call_tool("vault_history", {"revision_id": rid}))
        missing = error(await c.call_tool("vault_history", {"revision_id": "nosuchrevision"}))

    assert {"path", "revisions", "events"} <= set(by_path)
    assert by_path["path"] == "tech/lamp.md"
    [rev] = by_path["revisions"]
    assert {"revision_id", "sha256", "size", "reason", "caller", "at"} <= set(rev)
    assert (rev["sha256"], rev["size"], rev["caller"]) == (sha(lamp), len(lamp), "writer")
    assert [e["decision"] for e in by_path["events"]] == ["written", "refused"]
    for e in by_path["events"]:
        assert {"at", "tool", "caller", "decision", "before", "after", "reason"} <= set(e)
    assert {"revision_id", "path", "sha256", "size", "content"} <= set(by_rev)
    assert by_rev["content"].encode() == lamp
    assert (by_rev["revision_id"], by_rev["path"], by_rev["sha256"]) == (
        rid,
        "tech/lamp.md",
        sha(lamp),
    )
    assert missing["error"] == "not_found"


async def test_file_note_archive_restore_and_recover_through_mcp(
    lamp, hoard: Hoard, note_text, vault
) -> None:
    kettle = note_text("Kettle", "Boils water and mentions the [[lamp]].")
    async with Client(server(hoard, WRITER)) as c:
        filed = ok(
            await c.call_tool("vault_file_note", {"path": "tech/kettle.md", "content": kettle})
        )
        recovered = ok(
            await c.call_tool("vault_recover", {"transaction_id": filed["transaction_id"]})
        )
        unknown = error(await c.call_tool("vault_recover", {"transaction_id": "nosuchtxn"}))
        archived = ok(
            await c.call_tool(
                "vault_archive",
                {"path": "tech/lamp.md", "reason": "retracted", "expected_revision": sha(lamp)},
            )
        )
        restored = ok(
            await c.call_tool(
                "vault_restore", {"revision_id": archived["revision_id"], "path": "tech/old.md"}
            )
        )
        bad_reason = error(
            await c.call_tool(
                "vault_archive",
                {"path": "tech/old.md", "reason": "deleted", "expected_revision": sha(lamp)},
            )
        )

    assert {"status", "transaction_id", "note_revision", "index_revision"} <= set(filed)
    assert filed["note_revision"] == sha(kettle.encode())
    assert filed["index_revision"] == sha((vault / "tech" / "_INDEX.md").read_bytes())
    assert recovered["transactions"][0]["state"] == "done"
    assert unknown["error"] == "not_found"
    assert {"revision_id", "sha256", "inbound_links"} <= set(archived)
    assert archived["sha256"] == sha(lamp)
    assert archived["inbound_links"] == ["tech/kettle.md"]
    assert (restored["status"], restored["path"]) == ("restored", "tech/old.md")
    assert (vault / "tech" / "old.md").read_bytes() == lamp
    assert bad_reason["error"] == "invalid_argument"


async def test_write_tools_are_not_read_only_and_archive_is_destructive(hoard: Hoard) -> None:
    # A caller that may confirm: tools/list shows only the tools a caller's scopes allow.
    async with Client(server(hoard, LOCAL_DEFAULT)) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}

    for name in WRITE_TOOLS:
        assert tools[name].annotations is not None, name
        assert tools[name].annotations.read_only_hint is False, name
    assert tools["vault_archive"].annotations.destructive_hint is True
    for name in ("vault_history", "vault_proposals"):
        assert tools[name].annotations.read_only_hint is True, name
        assert tools[name].annotations.destructive_hint is False, name
