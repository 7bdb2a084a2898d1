"""The orientation tools through the SDK's client: vault_recent (hoard's writes, outside
edits and archives, newest first, paged by cursor, nothing protected named), vault_context
(within its budget, naming the neighbours), the prompts, and ChatGPT's search and fetch."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.app.sync.conftest import CONFIG, Site, git
from tests.app.sync.conftest import note as sync_note
from tests.helpers import make_vault, note_text, write_file

pytestmark = pytest.mark.anyio

CHATGPT_SEARCH_KEYS = {"id", "title", "url"}
CHATGPT_FETCH_KEYS = {"id", "title", "text", "url", "metadata"}


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    return make_vault(
        tmp_path / "vault",
        {
            "tech/_INDEX.md": "# Tech\n\n- [[hue-bridge]] the bridge\n- [[router]]\n",
            "tech/hue-bridge.md": note_text(
                "Hue bridge", "## Firmware\n\nUpdated the firmware.\n\nSee [[router]]."
            ),
            "tech/router.md": note_text("Router", "The router in the hall. See [[hue-bridge]]."),
            "secret/plan.md": note_text("Plan", "Hidden plan about the [[hue-bridge]]."),
            "personal-notes/diary.md": "dear diary, the bridge again\n",
        },
    )


@pytest.fixture
def small_hoard(small_vault: Path, tmp_path: Path) -> Any:
    (small_vault / "hoard.toml").write_text('protected = ["secret/**"]\n')
    with Hoard(small_vault, tmp_path / "state") as h:
        yield h


def call(ok: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
    async def run(c: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return ok(await c.call_tool(tool, args))

    return run


def touch_later(path: Path, seconds: float) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + int(seconds * 1e9)))


async def test_recent_lists_a_write_an_outside_edit_and_an_archive_newest_first_with_who(
    small_hoard: Hoard, small_vault: Path, agent: Caller, ok: Any
) -> None:
    mcp = HoardMCP(small_hoard, OWNER)
    run = call(ok)
    async with Client(mcp.server) as c:
        start = await run(c, "vault_recent", {})
        read = await run(c, "vault_read", {"path": "tech/router.md"})
        new = read["content"].replace("in the hall", "in the attic")
        await run(
            c,
            "vault_write",
            {"path": "tech/router.md", "content": new, "expected_revision": read["revision"]},
        )
        outside = small_vault / "tech" / "hue-bridge.md"
        outside.write_text(outside.read_text() + "\nAn outside line.\n")
        touch_later(outside, 5)
        small_hoard.index.sync()
        rev = (await run(c, "vault_read", {"path": "tech/router.md"}))["revision"]
        await run(
            c,
            "vault_archive",
            {"path": "tech/router.md", "reason": "archived", "expected_revision": rev},
        )
        after = await run(c, "vault_recent", {"cursor": start["cursor"]})
    kinds = [(ch["path"], ch["kind"], ch["who"]) for ch in after["changes"]]
    assert ("tech/router.md", "archived", "owner") in kinds
    assert ("tech/router.md", "modified", "owner") in kinds
    assert ("tech/hue-bridge.md", "modified", "outside") in kinds
    assert kinds.index(("tech/router.md", "archived", "owner")) < kinds.index(
        ("tech/router.md", "modified", "owner")
    )
    mod = next(ch for ch in after["changes"] if ch["kind"] == "modified" and ch["who"] == "owner")
    assert "bytes" in mod["summary"]
    hue = next(ch for ch in after["changes"] if ch["who"] == "outside")
    assert hue["title"] == "Hue bridge" and hue["path"] == "tech/hue-bridge.md"


async def test_recent_pages_with_the_cursor_then_tells_only_what_changed_since(
    small_hoard: Hoard, ok: Any
) -> None:
    mcp = HoardMCP(small_hoard, OWNER)
    run = call(ok)
    async with Client(mcp.server) as c:
        for i in range(5):
            await run(c, "vault_write", {"path": f"log/n{i}.md", "content": note_text(f"N{i}")})
        first = await run(c, "vault_recent", {"limit": 2, "folder": "log"})
        log = {"limit": 2, "folder": "log"}
        second = await run(c, "vault_recent", {**log, "cursor": first["cursor"]})
        third = await run(c, "vault_recent", {**log, "cursor": second["cursor"]})
        quiet = await run(c, "vault_recent", {**log, "cursor": third["cursor"]})
        await run(c, "vault_write", {"path": "log/n9.md", "content": note_text("N9")})
        fresh = await run(c, "vault_recent", {**log, "cursor": quiet["cursor"]})
    pages = [first, second, third]
    seen = [ch["path"] for p in pages for ch in p["changes"] if ch["path"].startswith("log/")]
    assert seen == [f"log/n{i}.md" for i in (4, 3, 2, 1, 0)]
    assert first["more"] and second["more"] and not third["more"]
    assert quiet["changes"] == []
    assert [ch["path"] for ch in fresh["changes"]] == ["log/n9.md"]
    assert fresh["changes"][0]["kind"] == "created"


async def test_recent_hides_changes_to_protected_notes_from_a_caller_without_a_grant(
    small_hoard: Hoard, agent: Caller, ok: Any
) -> None:
    small_hoard.writes.write("secret/plan2.md", note_text("Plan two"), caller=OWNER)
    async with Client(HoardMCP(small_hoard, agent).server) as c:
        data = ok(await c.call_tool("vault_recent", {}))
    assert "secret" not in json.dumps(data)
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        owner_view = ok(await c.call_tool("vault_recent", {}))
    assert "secret/plan2.md" in [ch["path"] for ch in owner_view["changes"]]


async def test_recent_finds_an_outside_edit_behind_more_hidden_ones_than_a_page_holds(
    small_hoard: Hoard, small_vault: Path, agent: Caller, ok: Any
) -> None:
    seen = small_vault / "tech" / "hue-bridge.md"
    seen.write_text(seen.read_text() + "\nAn outside line.\n")
    touch_later(seen, 5)
    for i in range(3):
        hidden = small_vault / "secret" / f"later{i}.md"
        hidden.write_text(note_text(f"Later {i}"))
        touch_later(hidden, 10 + i)
    small_hoard.index.sync()
    async with Client(HoardMCP(small_hoard, agent).server) as c:
        data = ok(await c.call_tool("vault_recent", {"limit": 1}))
    assert [(ch["path"], ch["who"], ch["title"]) for ch in data["changes"]] == [
        ("tech/hue-bridge.md", "outside", "Hue bridge")
    ]
    assert "secret" not in json.dumps(data)


async def test_recent_refuses_a_cursor_it_did_not_make(small_hoard: Hoard, tool_error: Any) -> None:
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        bad = await c.call_tool("vault_recent", {"cursor": "not-a-cursor"})
    assert tool_error(bad)["error"] == "invalid_argument"


async def test_context_stays_within_its_budget_and_names_the_neighbours(
    small_hoard: Hoard, agent: Caller, ok: Any
) -> None:
    async with Client(HoardMCP(small_hoard, agent).server) as c:
        data = ok(await c.call_tool("vault_context", {"path": "tech/hue-bridge.md"}))
        tight = ok(
            await c.call_tool("vault_context", {"path": "tech/hue-bridge.md", "budget_bytes": 512})
        )
    kinds = {p["kind"]: p for p in data["parts"]}
    assert kinds["note"]["text"].startswith("---")
    assert "tech/router.md" in kinds["links_out"]["paths"]
    assert "Router" in kinds["links_out"]["text"]
    assert "tech/router.md" in kinds["backlinks"]["paths"]
    assert "[[hue-bridge]]" in kinds["folder_index"]["text"]
    assert data["used_bytes"] <= data["budget_bytes"]
    assert sum(len(p["text"].encode()) for p in tight["parts"]) <= 512
    assert tight["used_bytes"] <= 512
    assert "secret" not in json.dumps(data), "a protected backlink must not be named"


async def test_orient_prompt_mentions_a_pending_proposal_and_its_cursor(
    small_hoard: Hoard, ok: Any
) -> None:
    proposer = Caller("scribe", frozenset({"read", "write"}), "propose")
    async with Client(HoardMCP(small_hoard, proposer).server) as c:
        made = ok(
            await c.call_tool("vault_write", {"path": "tech/new.md", "content": note_text("New")})
        )
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        listed = await c.list_prompts()
        got = await c.get_prompt("orient", {})
    names = {p.name for p in listed.prompts}
    assert {"orient", "file-a-note", "review-before-write"} <= names
    text = got.messages[0].content.text
    assert made["proposal_id"] in text and "tech/new.md" in text
    assert "cursor=r1." in text


async def test_file_a_note_prompt_is_made_from_the_vaults_own_contract_and_folders(
    small_hoard: Hoard,
) -> None:
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        got = await c.get_prompt("file-a-note", {})
        review = await c.get_prompt("review-before-write", {"path": "tech/router.md"})
    text = got.messages[0].content.text
    assert "title, type, status, tags, updated" in text
    assert "tech/ (2 notes, indexed in tech/_INDEX.md)" in text
    assert "vault_file_note" in text
    assert "expected_revision" in review.messages[0].content.text


async def test_an_unknown_prompt_is_invalid_params(small_hoard: Hoard) -> None:
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        with pytest.raises(MCPError) as raised:
            await c.get_prompt("no-such-prompt", {})
    assert raised.value.error.code == -32602


async def test_chatgpt_search_and_fetch_answer_exactly_the_documented_shapes(
    small_hoard: Hoard, agent: Caller
) -> None:
    mcp = HoardMCP(small_hoard, agent, "https://notes.example.net")
    async with Client(mcp.server) as c:
        found = await c.call_tool("search", {"query": "bridge"})
        doc = await c.call_tool("fetch", {"id": "tech/hue-bridge.md"})
    assert not found.is_error and not doc.is_error
    results = json.loads(found.content[0].text)
    assert set(results) == {"results"}
    hits = results["results"]
    assert hits and all(set(h) == CHATGPT_SEARCH_KEYS for h in hits)
    assert hits[0]["url"].startswith("https://notes.example.net/n/")
    paths = {h["id"] for h in hits}
    assert "secret/plan.md" not in paths, "protected notes stay hidden"
    assert "personal-notes/diary.md" not in paths, "private notes never leave the machine"
    body = json.loads(doc.content[0].text)
    assert set(body) == CHATGPT_FETCH_KEYS
    assert body["title"] == "Hue bridge" and "Updated the firmware" in body["text"]
    assert body["url"] == "https://notes.example.net/n/tech/hue-bridge.md"


async def test_chatgpt_fetch_refuses_protected_and_private_notes(
    small_hoard: Hoard, agent: Caller, tool_error: Any
) -> None:
    async with Client(HoardMCP(small_hoard, agent).server) as c:
        hidden = await c.call_tool("fetch", {"id": "secret/plan.md"})
        private = await c.call_tool("fetch", {"id": "personal-notes/diary.md"})
    assert tool_error(hidden)["error"] == "protected"
    assert tool_error(private)["error"] == "private_note"


async def test_chatgpt_tools_can_be_turned_off_in_hoard_toml(
    small_vault: Path, tmp_path: Path
) -> None:
    (small_vault / "hoard.toml").write_text("[mcp]\nchatgpt_tools = false\n")
    with Hoard(small_vault, tmp_path / "state2") as h:
        async with Client(HoardMCP(h, OWNER).server) as c:
            names = {t.name for t in (await c.list_tools()).tools}
    assert "vault_recent" in names
    assert not {"search", "fetch"} & names


async def test_recent_lists_a_move_and_a_restore_with_their_kinds(
    small_hoard: Hoard, ok: Any
) -> None:
    run = call(ok)
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        start = await run(c, "vault_recent", {})
        rev = (await run(c, "vault_read", {"path": "tech/router.md"}))["revision"]
        await run(
            c,
            "vault_move",
            {"path": "tech/router.md", "new_path": "tech/gateway.md", "expected_revision": rev},
        )
        rev = (await run(c, "vault_read", {"path": "tech/gateway.md"}))["revision"]
        archived = await run(
            c,
            "vault_archive",
            {"path": "tech/gateway.md", "reason": "superseded", "expected_revision": rev},
        )
        await run(
            c, "vault_restore", {"revision_id": archived["revision_id"], "path": "tech/old.md"}
        )
        after = await run(c, "vault_recent", {"cursor": start["cursor"]})
    kinds = [(ch["path"], ch["kind"]) for ch in after["changes"]]
    assert ("tech/gateway.md", "moved") in kinds
    assert ("tech/gateway.md", "archived") in kinds
    assert kinds[0] == ("tech/old.md", "restored")
    moves = {ch["path"]: ch["summary"] for ch in after["changes"] if ch["kind"] == "moved"}
    assert moves == {"tech/router.md": "moved away", "tech/gateway.md": "moved here"}
    assert ("tech/hue-bridge.md", "modified") in kinds, "a rewritten link is a modification"


async def test_recent_since_leaves_out_what_changed_before_that_time(
    small_hoard: Hoard, ok: Any
) -> None:
    run = call(ok)
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        await run(c, "vault_write", {"path": "log/early.md", "content": note_text("Early")})
        await anyio.sleep(0.05)
        since = datetime.now(UTC).isoformat()
        await anyio.sleep(0.05)
        await run(c, "vault_write", {"path": "log/late.md", "content": note_text("Late")})
        later = await run(c, "vault_recent", {"since": since})
        everything = await run(c, "vault_recent", {})
        bad = await c.call_tool("vault_recent", {"since": "last tuesday"})
    assert [ch["path"] for ch in later["changes"]] == ["log/late.md"]
    assert {"log/early.md", "log/late.md"} <= {ch["path"] for ch in everything["changes"]}
    assert bad.is_error and '"invalid_argument"' in bad.content[0].text


async def test_recent_summary_names_the_fields_and_sections_touched_and_the_bytes(
    small_hoard: Hoard, ok: Any
) -> None:
    run = call(ok)
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        read = await run(c, "vault_read", {"path": "tech/hue-bridge.md"})
        new = (
            read["content"]
            .replace("tags: [alpha, beta]", "tags: [alpha, gamma]")
            .replace("Updated the firmware.", "Updated the firmware to 1.60.")
        )
        await run(
            c,
            "vault_write",
            {"path": "tech/hue-bridge.md", "content": new, "expected_revision": read["revision"]},
        )
        listed = await run(c, "vault_recent", {"limit": 1})
    change = listed["changes"][0]
    assert (change["path"], change["kind"]) == ("tech/hue-bridge.md", "modified")
    old_lines = len("tags: [alpha, beta]\n") + len("Updated the firmware.\n")
    new_lines = len("tags: [alpha, gamma]\n") + len("Updated the firmware to 1.60.\n")
    assert change["summary"] == f"fields tags; sections Firmware; +{new_lines}/-{old_lines} bytes"


async def test_a_note_changed_by_a_git_pull_is_credited_to_the_remote(
    tmp_path: Path, ok: Any
) -> None:
    remote, person = tmp_path / "remote.git", tmp_path / "person"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(person))
    git(person, "checkout", "-q", "-b", "main")
    write_file(person, "hoard.toml", CONFIG)
    write_file(person, "tech/lamp.md", sync_note("Lamp", "The lamp is in the hall."))
    site = Site(tmp_path, remote, person)
    site.person_commit({}, "start")
    with Hoard(site.clone("served"), tmp_path / "state-served") as h:
        async with Client(HoardMCP(h, OWNER).server) as c:
            start = ok(await c.call_tool("vault_recent", {}))
            site.person_commit({"tech/lamp.md": sync_note("Lamp", "The lamp is in the study.")})
            assert h.sync.sync(caller=OWNER).error is None
            after = ok(await c.call_tool("vault_recent", {"cursor": start["cursor"]}))
    lamp = [ch for ch in after["changes"] if ch["path"] == "tech/lamp.md"]
    assert lamp and lamp[0]["who"] == "git:origin" and lamp[0]["kind"] == "modified"
    assert "bytes" in lamp[0]["summary"]


async def test_context_labels_the_claims_the_summary_state_and_pending_proposals(
    small_hoard: Hoard, ok: Any
) -> None:
    rel = "tech/hue-bridge.md"
    small_hoard.honesty.claims.record("hue", "firmware", "1.59", rel, caller=OWNER)
    small_hoard.honesty.syntheses.register(rel, ["tech/router.md"], caller=OWNER)
    proposer = Caller("scribe", frozenset({"read", "write"}), "propose")
    async with Client(HoardMCP(small_hoard, proposer).server) as c:
        read = ok(await c.call_tool("vault_read", {"path": rel}))
        made = ok(
            await c.call_tool(
                "vault_write",
                {
                    "path": rel,
                    "content": read["content"] + "\nA proposed line.\n",
                    "expected_revision": read["revision"],
                },
            )
        )
    router = small_hoard.vault.root / "tech" / "router.md"
    router.write_text(router.read_text() + "\nThe router moved.\n")
    touch_later(router, 5)
    small_hoard.index.sync()
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        data = ok(await c.call_tool("vault_context", {"path": rel}))
    kinds = {p["kind"]: p for p in data["parts"]}
    assert kinds["claims"]["label"] == "claims bound to this note"
    assert "hue firmware = 1.59 (live" in kinds["claims"]["text"]
    assert kinds["synthesis"]["label"] == "summary state"
    assert (
        kinds["synthesis"]["text"].startswith("stale")
        and "tech/router.md" in kinds["synthesis"]["text"]
    )
    assert kinds["proposals"]["label"] == "pending proposals for this note"
    assert made["proposal_id"] in kinds["proposals"]["text"]
    order = [p["kind"] for p in data["parts"]]
    assert order.index("claims") < order.index("synthesis") < order.index("proposals")


async def test_orient_prompt_names_a_summary_whose_source_changed(small_hoard: Hoard) -> None:
    small_hoard.writes.write(
        "tech/summary.md", note_text("Summary", "Of the router."), caller=OWNER
    )
    small_hoard.honesty.syntheses.register("tech/summary.md", ["tech/router.md"], caller=OWNER)
    async with Client(HoardMCP(small_hoard, OWNER).server) as c:
        fresh = (await c.get_prompt("orient", {})).messages[0].content.text
        read = small_hoard.reading.read("tech/router.md", caller=OWNER)
        small_hoard.writes.write(
            "tech/router.md",
            read.content.replace("in the hall", "in the attic"),
            read.revision,
            caller=OWNER,
        )
        stale = (await c.get_prompt("orient", {})).messages[0].content.text
    assert "Stale summaries" not in fresh
    assert "Stale summaries" in stale and "- tech/summary.md" in stale


async def test_chatgpt_urls_are_vault_uris_where_no_web_app_is_served(
    small_hoard: Hoard, agent: Caller
) -> None:
    async with Client(HoardMCP(small_hoard, agent).server) as c:
        found = await c.call_tool("search", {"query": "router"})
        doc = await c.call_tool("fetch", {"id": "tech/router.md"})
    hits = json.loads(found.content[0].text)["results"]
    assert hits and all(h["url"] == f"vault://{h['id']}" for h in hits)
    assert json.loads(doc.content[0].text)["url"] == "vault://tech/router.md"
