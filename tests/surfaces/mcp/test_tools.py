"""The tools and resources through the SDK's in-memory client, on the example vault."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from hoard.app.hoard import Hoard
from hoard.core.choices import ArchiveReason, RerankChoice, SearchMode, SemanticChoice
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

READERS = ("vault_search", "vault_read", "vault_list", "vault_links", "vault_policy")
TOOLS = (*READERS, "vault_request_access")
# Every tool name SPEC section 4 defines; later issues add the writing ones.
SPEC_TOOLS = {
    *TOOLS,
    "vault_history",
    "read_code",
    "vault_similar",
    "vault_write",
    "vault_confirm",
    "vault_proposals",
    "vault_reject",
    "vault_file_note",
    "vault_recover",
    "vault_archive",
    "vault_restore",
    "claim_record",
    "claim_get",
    "claim_list",
    "synthesis_register",
    "synthesis_status",
    "vault_edit",  # SPEC section 11 (issue 20)
    "vault_move",
    "vault_tags",
    # SPEC section 12 (the third round)
    "vault_recent",
    "vault_context",
    "vault_sync_status",
    "vault_daily",
    "search",
    "fetch",
}

SPEC_FIELDS = {
    "vault_search": {
        "query",
        "engine",
        "error",
        "contested",
        "reranked",
        "hidden_protected",
        "took_ms",
        "results",
        "warnings",
    },
    "vault_read": {
        "path",
        "revision",
        "size",
        "content",
        "offset",
        "next_offset",
        "truncated",
        "frontmatter",
        "warnings",
    },
    "vault_list": {"path", "entries", "truncated"},
    "vault_links": {"path", "outgoing", "backlinks", "broken"},
    "vault_policy": {"caller", "scopes", "write_mode", "private", "protected", "grants", "notes"},
}
HIT_FIELDS = {"path", "title", "score", "snippet", "folder", "frontmatter", "warnings"}
ENTRY_FIELDS = {"path", "kind", "size", "mtime"}
OUTGOING_FIELDS = {"target", "resolved_path", "broken"}


@pytest.fixture(scope="module")
def mcp(example_hoard: Hoard) -> HoardMCP:
    return HoardMCP(example_hoard, LOCAL_DEFAULT)


def sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text.strip()))


async def test_the_server_offers_the_six_reading_tools_and_only_spec_tools(
    mcp: HoardMCP,
) -> None:
    async with Client(mcp.server) as c:
        names = [t.name for t in (await c.list_tools()).tools]
    assert len(names) == len(set(names))
    assert set(TOOLS) <= set(names)
    assert set(names) <= SPEC_TOOLS


async def test_every_tool_has_a_one_to_three_sentence_description(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        tools = (await c.list_tools()).tools
    for tool in tools:
        assert tool.description, tool.name
        assert 1 <= sentences(tool.description) <= 3, (tool.name, tool.description)


async def test_the_five_readers_are_read_only_and_request_access_is_not(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    for name in READERS:
        ann = tools[name].annotations
        assert ann is not None, name
        assert ann.read_only_hint is True, name
        assert ann.destructive_hint is False, name
    ann = tools["vault_request_access"].annotations
    assert ann is not None
    assert ann.read_only_hint is False
    assert ann.destructive_hint is False


async def test_every_tool_declares_an_output_schema_with_the_spec_fields(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    for name in TOOLS:
        schema = tools[name].output_schema
        assert isinstance(schema, dict), name
        assert schema.get("type") == "object", name
        assert SPEC_FIELDS.get(name, set()) <= set(schema.get("properties", {})), name
    req = tools["vault_request_access"].output_schema
    assert req is not None
    assert "request_id" in req["properties"]


async def test_input_schemas_bound_the_limits(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    search_limit = tools["vault_search"].input_schema["properties"]["limit"]
    assert search_limit.get("minimum") == 1
    assert search_limit.get("maximum") == 100
    assert tools["vault_search"].input_schema["required"] == ["query"]
    assert tools["vault_read"].input_schema["required"] == ["path"]


@pytest.mark.parametrize(
    ("tool", "argument", "choice"),
    [
        ("vault_search", "mode", SearchMode),
        ("vault_search", "rerank", RerankChoice),
        ("vault_search", "semantic", SemanticChoice),
        ("vault_archive", "reason", ArchiveReason),
    ],
)
async def test_a_closed_choice_is_an_enum_in_the_input_schema(
    mcp: HoardMCP, tool: str, argument: str, choice: Any
) -> None:
    async with Client(mcp.server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    schema = tools[tool].input_schema["properties"][argument]
    assert schema["enum"] == list(get_args(choice))


async def test_search_finds_the_hue_runbook_with_every_spec_field(
    mcp: HoardMCP, ok, shared_example_vault: Path
) -> None:
    async with Client(mcp.server) as c:
        r = await c.call_tool("vault_search", {"query": "hue bridge firmware", "limit": 5})
    data = ok(r)
    assert SPEC_FIELDS["vault_search"] <= set(data)
    assert data["query"] == "hue bridge firmware"
    assert data["engine"] == "fts5"
    assert data["error"] is None
    assert data["reranked"] is False
    assert data["hidden_protected"] == 0
    assert isinstance(data["took_ms"], int | float)
    assert isinstance(data["contested"], bool)
    assert isinstance(data["warnings"], list)
    assert 1 <= len(data["results"]) <= 5
    top = data["results"][0]
    assert set(top) >= HIT_FIELDS
    assert top["path"] == "tech/hue-bridge.md"
    assert top["title"] == "Hue Bridge Firmware Runbook"
    assert top["folder"] == "tech"
    assert top["frontmatter"]["title"] == "Hue Bridge Firmware Runbook"
    assert top["snippet"]
    scores = [h["score"] for h in data["results"]]
    assert scores == sorted(scores, reverse=True)
    for hit in data["results"]:
        assert (shared_example_vault / hit["path"]).is_file()


async def test_search_folder_filter_keeps_results_below_that_folder(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        r = await c.call_tool("vault_search", {"query": "hue", "folder": "logs"})
    data = ok(r)
    assert data["results"]
    assert all(h["path"].startswith("logs/") for h in data["results"])


async def test_search_in_fts_mode_accepts_the_fts5_grammar(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        r = await c.call_tool("vault_search", {"query": '"hue bridge" AND firm*', "mode": "fts"})
    data = ok(r)
    assert "tech/hue-bridge.md" in [h["path"] for h in data["results"]]


async def test_natural_mode_takes_any_text_without_a_syntax_error(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        for query in ("foo AND", "it's C++ e-mail \"unbalanced", "*", "", "NEAR(", "🦀"):
            data = ok(await c.call_tool("vault_search", {"query": query}))
            assert data["query"] == query


async def test_read_returns_the_exact_note_with_its_revision(
    mcp: HoardMCP, ok, shared_example_vault: Path
) -> None:
    raw = (shared_example_vault / "tech" / "hue-bridge.md").read_bytes()
    async with Client(mcp.server) as c:
        r = await c.call_tool("vault_read", {"path": "tech/hue-bridge.md"})
    data = ok(r)
    assert SPEC_FIELDS["vault_read"] <= set(data)
    assert data["path"] == "tech/hue-bridge.md"
    assert data["content"] == raw.decode("utf-8")
    assert data["revision"] == hashlib.sha256(raw).hexdigest()
    assert data["size"] == len(raw)
    assert data["offset"] == 0
    assert data["next_offset"] is None
    assert data["truncated"] is False
    assert data["frontmatter"]["title"] == "Hue Bridge Firmware Runbook"
    assert data["frontmatter"]["tags"] == ["home-automation", "hue"]
    assert data["warnings"] == []


async def test_read_in_byte_ranges_reassembles_the_note(
    mcp: HoardMCP, ok, shared_example_vault: Path
) -> None:
    raw = (shared_example_vault / "tech" / "hue-bridge.md").read_bytes()
    pieces: list[bytes] = []
    offset: int | None = 0
    async with Client(mcp.server) as c:
        while offset is not None:
            data = ok(
                await c.call_tool(
                    "vault_read",
                    {"path": "tech/hue-bridge.md", "offset": offset, "max_bytes": 700},
                )
            )
            assert data["offset"] == offset
            assert data["size"] == len(raw)
            chunk = data["content"].encode("utf-8")
            assert 0 < len(chunk) <= 700
            pieces.append(chunk)
            assert data["truncated"] is (data["next_offset"] is not None)
            if data["next_offset"] is not None:
                assert data["next_offset"] == offset + len(chunk)
            offset = data["next_offset"]
    assert len(pieces) > 1
    assert b"".join(pieces) == raw


async def test_list_shows_the_live_folder_with_vault_relative_paths(
    mcp: HoardMCP, ok, shared_example_vault: Path
) -> None:
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_list", {"path": "tech"}))
    assert SPEC_FIELDS["vault_list"] <= set(data)
    assert data["path"] == "tech"
    assert data["truncated"] is False
    by_path = {e["path"]: e for e in data["entries"]}
    for entry in data["entries"]:
        assert set(entry) >= ENTRY_FIELDS
        assert entry["path"].startswith("tech/")
        assert entry["kind"] in {"note", "folder", "file"}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["mtime"])
    hue = by_path["tech/hue-bridge.md"]
    assert hue["kind"] == "note"
    assert hue["size"] == (shared_example_vault / "tech" / "hue-bridge.md").stat().st_size
    assert by_path["tech/homelab"]["kind"] == "folder"
    expected = {
        p.name for p in (shared_example_vault / "tech").iterdir() if not p.name.startswith(".")
    }
    assert {e["path"].removeprefix("tech/") for e in data["entries"]} == expected


async def test_list_of_the_root_recursive_and_limited(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        root = ok(await c.call_tool("vault_list", {}))
        deep = ok(await c.call_tool("vault_list", {"recursive": True}))
        few = ok(await c.call_tool("vault_list", {"recursive": True, "limit": 3}))
    assert root["path"] == ""
    assert "tech" in {e["path"] for e in root["entries"]}
    assert "tech/hue-bridge.md" not in {e["path"] for e in root["entries"]}
    assert "tech/hue-bridge.md" in {e["path"] for e in deep["entries"]}
    assert len(few["entries"]) == 3
    assert few["truncated"] is True


async def test_list_sees_a_note_written_a_moment_ago(
    mcp: HoardMCP, ok, shared_example_vault: Path, note_text
) -> None:
    fresh = shared_example_vault / "references" / "just-written.md"
    fresh.write_text(note_text("Just written", "Hello."), encoding="utf-8")
    try:
        async with Client(mcp.server) as c:
            data = ok(await c.call_tool("vault_list", {"path": "references"}))
        assert "references/just-written.md" in {e["path"] for e in data["entries"]}
    finally:
        fresh.unlink()


async def test_links_resolve_outgoing_and_list_backlinks(
    mcp: HoardMCP, ok, shared_example_vault: Path
) -> None:
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_links", {"path": "tech/hue-bridge.md"}))
    assert SPEC_FIELDS["vault_links"] <= set(data)
    assert data["path"] == "tech/hue-bridge.md"
    for link in data["outgoing"]:
        assert set(link) >= OUTGOING_FIELDS
    out = {o["target"]: o for o in data["outgoing"]}
    assert out["home-assistant"]["resolved_path"] == "tech/home-assistant.md"
    assert out["home-assistant"]["broken"] is False
    assert data["broken"] == []
    assert "tech/home-assistant.md" in data["backlinks"]
    for source in data["backlinks"]:
        assert "hue-bridge" in (shared_example_vault / source).read_text(encoding="utf-8")


async def test_links_report_a_broken_link(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_links", {"path": "projects/home-automation-revamp.md"}))
    assert "zigbee-migration-plan" in data["broken"]
    broken = [o for o in data["outgoing"] if o["target"] == "zigbee-migration-plan"]
    assert broken
    assert broken[0]["broken"] is True
    assert broken[0]["resolved_path"] is None


async def test_policy_describes_the_caller_as_a_credential_holder(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_policy", {}))
    assert SPEC_FIELDS["vault_policy"] <= set(data)
    assert data["caller"] == "local"
    assert set(data["scopes"]) == {"read", "write", "confirm"}
    assert data["write_mode"] == "propose"
    assert data["private"] == ["personal-notes/**"]
    assert data["protected"] == []
    assert data["grants"] == []
    assert any("credential holder, not a person" in n for n in data["notes"])


async def test_request_access_records_a_pending_request(protected_hoard: Hoard, agent, ok) -> None:
    mcp = HoardMCP(protected_hoard, agent)
    async with Client(mcp.server) as c:
        r = await c.call_tool(
            "vault_request_access", {"glob": "secret/**", "reason": "to plan the takeover"}
        )
    data = ok(r)
    assert json.loads(r.content[0].text) == data
    assert data["status"] == "pending"
    assert data["glob"] == "secret/**"
    assert data["request_id"]
    assert data["request_id"] in data["message"]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("vault_search", {"query": "hue bridge"}),
        ("vault_read", {"path": "tech/hue-bridge.md"}),
        ("vault_list", {"path": "tech"}),
        ("vault_links", {"path": "tech/hue-bridge.md"}),
        ("vault_policy", {}),
    ],
)
async def test_the_text_content_of_a_success_is_the_structured_content_as_compact_json(
    mcp: HoardMCP, name: str, args: dict[str, object]
) -> None:
    async with Client(mcp.server) as c:
        r = await c.call_tool(name, args)
    assert not r.is_error
    assert r.content[0].type == "text"
    assert json.loads(r.content[0].text) == r.structured_content
    compact = json.dumps(r.structured_content, ensure_ascii=False, separators=(",", ":"))
    assert r.content[0].text == compact


async def test_the_note_resource_template_is_listed(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        templates = (await c.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["vault://{+path}"]
    assert templates[0].mime_type == "text/markdown"


async def test_reading_a_note_resource_returns_the_note_text(
    mcp: HoardMCP, shared_example_vault: Path
) -> None:
    async with Client(mcp.server) as c:
        res = await c.read_resource("vault://tech/hue-bridge.md")
    assert len(res.contents) == 1
    assert res.contents[0].text == (shared_example_vault / "tech" / "hue-bridge.md").read_text(
        encoding="utf-8"
    )


async def test_reading_a_missing_note_resource_is_an_error(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        with pytest.raises(MCPError):
            await c.read_resource("vault://tech/no-such-note.md")
        ok(await c.call_tool("vault_policy", {}))
