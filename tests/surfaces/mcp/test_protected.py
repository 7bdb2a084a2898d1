"""Protected and private notes through the MCP tools: invisible without a grant, visible
with one, invisible again once it expires; access requests and their approval."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.cli import main as cli
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio

SECRET = "secret/plan.md"
SECRET_WORD = "zanzibarquux"
PRIVATE_WORD = "quillfeatherpine"


@pytest.fixture
def mcp(protected_hoard: Hoard, agent: Caller) -> HoardMCP:
    return HoardMCP(protected_hoard, agent)


def paths_in(listing: dict[str, Any]) -> set[str]:
    return {e["path"] for e in listing["entries"]}


async def visible_in_search(c: Client) -> bool:
    r = await c.call_tool("vault_search", {"query": SECRET_WORD})
    assert not r.is_error
    return SECRET in [h["path"] for h in r.structured_content["results"]]


async def test_a_protected_note_is_absent_from_search_which_counts_what_it_hid(
    mcp: HoardMCP, ok
) -> None:
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_search", {"query": SECRET_WORD}))
        in_folder = ok(await c.call_tool("vault_search", {"query": "plan", "folder": "secret"}))
    assert data["results"] == []
    assert data["hidden_protected"] >= 1
    assert SECRET_WORD not in json.dumps(data["results"])
    assert in_folder["results"] == []


async def test_a_search_that_hid_protected_hits_never_says_what_they_were(
    mcp: HoardMCP, ok
) -> None:
    """A misspelling of a word that occurs only in the protected note must not make the
    typo corrector reveal that word (SPEC 3: says how many it hid, never what they were)."""
    async with Client(mcp.server) as c:
        data = ok(await c.call_tool("vault_search", {"query": "zanzibarquix"}))
    assert data["results"] == []
    assert SECRET_WORD not in json.dumps(data)


async def test_a_protected_note_is_absent_from_listings(mcp: HoardMCP, ok, tool_error) -> None:
    async with Client(mcp.server) as c:
        root = ok(await c.call_tool("vault_list", {}))
        deep = ok(await c.call_tool("vault_list", {"recursive": True}))
        folder = await c.call_tool("vault_list", {"path": "secret"})
    assert "secret" not in paths_in(root)
    assert "tech" in paths_in(root)
    assert not any(p.startswith("secret") for p in paths_in(deep))
    assert "tech/hub.md" in paths_in(deep)
    if folder.is_error:
        assert tool_error(folder)["error"] == "protected"
    else:
        assert folder.structured_content["entries"] == []


async def test_hidden_protected_entries_neither_shorten_nor_truncate_a_limited_listing(
    mcp: HoardMCP, ok
) -> None:
    async with Client(mcp.server) as c:
        everything = ok(await c.call_tool("vault_list", {"recursive": True}))
        n = len(everything["entries"])
        limited = ok(await c.call_tool("vault_list", {"recursive": True, "limit": n}))
    assert everything["truncated"] is False
    assert paths_in(limited) == paths_in(everything)
    assert limited["truncated"] is False


async def test_a_protected_note_is_absent_from_links_and_backlinks(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        hub = ok(await c.call_tool("vault_links", {"path": "tech/hub.md"}))
    assert SECRET not in hub["backlinks"]
    assert SECRET not in json.dumps(hub)
    assert [o["resolved_path"] for o in hub["outgoing"] if o["target"] == "plan"] == [None]


async def test_reading_a_protected_note_without_a_grant_is_refused(
    mcp: HoardMCP, tool_error, ok
) -> None:
    async with Client(mcp.server) as c:
        err = tool_error(await c.call_tool("vault_read", {"path": SECRET}))
        assert err["error"] == "protected"
        assert SECRET_WORD not in json.dumps(err)
        links = tool_error(await c.call_tool("vault_links", {"path": SECRET}))
        assert links["error"] == "protected"
        # A note that does not exist under a protected glob answers the same way.
        ghost = tool_error(await c.call_tool("vault_read", {"path": "secret/ghost.md"}))
        assert ghost["error"] == "protected"
        ok(await c.call_tool("vault_read", {"path": "tech/hub.md"}))


async def test_a_protected_note_resource_is_refused_without_a_grant(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        with pytest.raises(MCPError) as refused:
            await c.read_resource(f"vault://{SECRET}")
        assert SECRET_WORD not in str(refused.value)
        ok(await c.call_tool("vault_policy", {}))


async def test_a_protected_resource_is_refused_exactly_like_a_missing_one(mcp: HoardMCP) -> None:
    """Issue 18: without a grant, a protected note is indistinguishable from no note."""
    async with Client(mcp.server) as c:
        with pytest.raises(MCPError) as refused:
            await c.read_resource(f"vault://{SECRET}")
        with pytest.raises(MCPError) as missing:
            await c.read_resource("vault://secret/none.md")
    assert refused.value.code == missing.value.code == -32602
    assert refused.value.message.replace(SECRET, "X") == missing.value.message.replace(
        "secret/none.md", "X"
    )


async def test_a_grant_makes_the_protected_note_visible_everywhere(
    mcp: HoardMCP, protected_hoard: Hoard, agent: Caller, ok
) -> None:
    protected_hoard.ledger.add_grant(agent.name, "secret/**", minutes=5)
    async with Client(mcp.server) as c:
        search = ok(await c.call_tool("vault_search", {"query": SECRET_WORD}))
        root = ok(await c.call_tool("vault_list", {}))
        folder = ok(await c.call_tool("vault_list", {"path": "secret"}))
        read = ok(await c.call_tool("vault_read", {"path": SECRET}))
        hub = ok(await c.call_tool("vault_links", {"path": "tech/hub.md"}))
        policy = ok(await c.call_tool("vault_policy", {}))
        res = await c.read_resource(f"vault://{SECRET}")
    assert [h["path"] for h in search["results"]] == [SECRET]
    assert search["hidden_protected"] == 0
    assert "secret" in paths_in(root)
    assert paths_in(folder) == {SECRET}
    assert SECRET_WORD in read["content"]
    assert SECRET in hub["backlinks"]
    assert [o["resolved_path"] for o in hub["outgoing"] if o["target"] == "plan"] == [SECRET]
    assert [g["glob"] for g in policy["grants"]] == ["secret/**"]
    assert policy["protected"] == ["secret/**"]
    assert SECRET_WORD in res.contents[0].text


async def test_a_grant_for_another_caller_does_not_help(
    mcp: HoardMCP, protected_hoard: Hoard, tool_error
) -> None:
    protected_hoard.ledger.add_grant("someone-else", "secret/**", minutes=5)
    async with Client(mcp.server) as c:
        assert not await visible_in_search(c)
        assert tool_error(await c.call_tool("vault_read", {"path": SECRET}))["error"] == "protected"


async def test_an_expired_grant_hides_the_note_again(
    mcp: HoardMCP, protected_hoard: Hoard, agent: Caller, tool_error, monkeypatch
) -> None:
    protected_hoard.ledger.add_grant(agent.name, "secret/**", minutes=1)
    async with Client(mcp.server) as c:
        assert await visible_in_search(c)
        later = time.time() + 61  # a minute later by the ledger's clock
        monkeypatch.setattr(protected_hoard.ledger, "clock", lambda: later)

        assert not await visible_in_search(c)
        assert tool_error(await c.call_tool("vault_read", {"path": SECRET}))["error"] == "protected"
        listing = (await c.call_tool("vault_list", {})).structured_content
        assert "secret" not in paths_in(listing)
        policy = (await c.call_tool("vault_policy", {})).structured_content
        assert policy["grants"] == []


async def test_request_access_is_pending_until_the_owner_approves_it_from_the_cli(
    mcp: HoardMCP,
    protected_hoard: Hoard,
    protected_vault: Path,
    protected_state: Path,
    agent: Caller,
    ok,
    tool_error,
    await_until,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with Client(mcp.server) as c:
        req = ok(
            await c.call_tool(
                "vault_request_access", {"glob": "secret/**", "reason": "to review the plan"}
            )
        )
        pending = protected_hoard.ledger.pending_requests()
        assert [(r.request_id, r.caller, r.glob) for r in pending] == [
            (req["request_id"], agent.name, "secret/**")
        ]
        assert pending[0].reason == "to review the plan"
        # Asking grants nothing.
        assert tool_error(await c.call_tool("vault_read", {"path": SECRET}))["error"] == "protected"

        capsys.readouterr()
        code = cli.run(
            [
                "grant",
                "--approve",
                req["request_id"],
                "--minutes",
                "5",
                "--vault",
                str(protected_vault),
                "--state-dir",
                str(protected_state),
                "--json",
            ]
        )
        assert code == 0
        grant = json.loads(capsys.readouterr().out)
        assert grant["caller"] == agent.name
        assert grant["glob"] == "secret/**"
        assert protected_hoard.ledger.pending_requests() == []

        # The grant is read through a one-second cache: poll until it shows.
        async def readable() -> dict[str, Any] | None:
            r = await c.call_tool("vault_read", {"path": SECRET})
            if r.is_error:
                assert tool_error(r)["error"] == "protected"
                return None
            return r.structured_content

        read = await await_until(readable)
        assert SECRET_WORD in read["content"]


async def test_approving_an_unknown_request_fails_cleanly(
    protected_vault: Path, protected_state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.run(
        [
            "grant",
            "--approve",
            "nosuchid",
            "--vault",
            str(protected_vault),
            "--state-dir",
            str(protected_state),
            "--json",
        ]
    )
    assert code == 2
    assert json.loads(capsys.readouterr().out)["error"] == "not_found"


async def test_private_notes_are_readable_and_searchable_with_read(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        search = ok(await c.call_tool("vault_search", {"query": PRIVATE_WORD}))
        read = ok(await c.call_tool("vault_read", {"path": "personal-notes/diary.md"}))
        listing = ok(await c.call_tool("vault_list", {"path": "personal-notes"}))
        policy = ok(await c.call_tool("vault_policy", {}))
    assert [h["path"] for h in search["results"]] == ["personal-notes/diary.md"]
    assert PRIVATE_WORD in read["content"]
    assert paths_in(listing) == {"personal-notes/diary.md"}
    assert policy["private"] == ["personal-notes/**"]
