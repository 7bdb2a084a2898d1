"""Protected paths never leak (issue 18, item 2): a caller without a grant probes every
answer that carries paths (write and file_note previews, duplicate hints, case variants,
links, inbound links after an archive, history, proposals, claims, synthesis sources,
errors, resources) and never meets a protected path, a count by name, or a hint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import note_text as note

pytestmark = pytest.mark.anyio

AGENT = Caller("agent", frozenset({"read", "write", "confirm"}), "direct")
PROPOSING_OWNER = Caller("owner", OWNER.scopes, "propose", owner=True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "vault"
    for folder in ("finance/deep", "public"):
        (root / folder).mkdir(parents=True)
    (root / "hoard.toml").write_text('protected = ["finance/**"]\n', encoding="utf-8")
    files = {
        "finance/deep/inner.md": note("Inner", "Links to [[target]]."),
        "finance/budget.md": note("Budget", "The budget. See [[target]]."),
        "public/target.md": note("Target", "A public note."),
        "public/hub.md": note("Hub", "See [[inner]] and [[budget]] and [[target]]."),
        "public/summary.md": note("Summary", "Summarises things."),
    }
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    with Hoard(root, tmp_path / "state") as h:
        h.writes.write(
            "finance/budget.md",
            note("Budget", "The budget, revised. See [[target]]."),
            h.reading.read("finance/budget.md", caller=OWNER).revision,
            caller=OWNER,
        )
        h.honesty.claims.record("rent", "amount", "900", "finance/budget.md", caller=OWNER)
        h.honesty.syntheses.register(
            "public/summary.md", ["finance/budget.md", "public/target.md"], caller=OWNER
        )
        h.writes.write("finance/new.md", note("New", "x"), caller=PROPOSING_OWNER)
        yield h


NEW = note("New", "x")


def archive_args(revision: str) -> dict[str, str]:
    return {"path": "public/target.md", "reason": "archived", "expected_revision": revision}


def text_of(result: CallToolResult) -> str:
    return json.dumps(
        [c.model_dump() for c in result.content] + [result.structured_content], ensure_ascii=False
    )


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


def assert_no_leak(text: str) -> None:
    """Every protected path lies under ``finance/``; the caller never typed that word."""
    assert "finance" not in text.lower(), text


async def test_no_answer_to_a_caller_without_a_grant_names_a_protected_path(hoard: Hoard) -> None:
    protected_rev = (
        hoard.writes.retirement.history("finance/budget.md", caller=OWNER).revisions[0].revision_id
    )
    proposal_id = hoard.writes.proposals(caller=OWNER).proposals[0].proposal_id
    mcp = HoardMCP(hoard, AGENT)
    probes: list[tuple[str, dict[str, Any]]] = [
        ("vault_write", {"path": "public/inner.md", "content": NEW, "dry_run": True}),
        ("vault_write", {"path": "public/BUDGET.md", "content": NEW, "dry_run": True}),
        ("vault_file_note", {"path": "public/inner.md", "content": NEW, "dry_run": True}),
        ("vault_links", {"path": "public/hub.md"}),
        ("vault_links", {"path": "public/target.md"}),
        ("vault_history", {"revision_id": protected_rev}),
        ("vault_restore", {"revision_id": protected_rev, "path": "public/restored.md"}),
        ("vault_proposals", {}),
        ("vault_confirm", {"proposal_id": proposal_id}),
        ("vault_reject", {"proposal_id": proposal_id}),
        ("claim_list", {}),
        ("claim_get", {"subject": "rent", "property": "amount"}),
        ("synthesis_status", {"path": "public/summary.md"}),
        ("vault_search", {"query": "budget"}),
        ("vault_list", {"recursive": True}),
    ]
    async with Client(mcp.server) as c:
        for tool, args in probes:
            assert_no_leak(text_of(await c.call_tool(tool, args)))
        target = (await c.call_tool("vault_read", {"path": "public/target.md"})).structured_content
        archived = await c.call_tool(
            "vault_archive",
            archive_args(target["revision"]),
        )
        assert not archived.is_error
        assert archived.structured_content["inbound_links"] == ["public/hub.md"]
        assert_no_leak(text_of(archived))


async def test_a_link_to_a_protected_note_reads_like_a_broken_link(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        links = (await c.call_tool("vault_links", {"path": "public/hub.md"})).structured_content
    by_target = {o["target"]: o for o in links["outgoing"]}
    assert by_target["inner"]["broken"] is True and by_target["inner"]["resolved_path"] is None
    assert by_target["target"]["resolved_path"] == "public/target.md"
    assert links["broken"] == ["inner", "budget"]


async def test_a_case_variant_of_a_protected_path_is_protected_too(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        for tool in ("vault_read", "vault_links", "vault_history"):
            r = await c.call_tool(tool, {"path": "Finance/Budget.md"})
            assert error_of(r)["error"] == "protected", tool
        write = await c.call_tool(
            "vault_write", {"path": "FINANCE/budget.md", "content": note("B", "x"), "dry_run": True}
        )
        assert error_of(write)["error"] == "protected"


async def test_a_protected_revision_or_proposal_answers_like_a_missing_one(hoard: Hoard) -> None:
    protected_rev = (
        hoard.writes.retirement.history("finance/budget.md", caller=OWNER).revisions[0].revision_id
    )
    proposal_id = hoard.writes.proposals(caller=OWNER).proposals[0].proposal_id
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        hidden = error_of(await c.call_tool("vault_history", {"revision_id": protected_rev}))
        missing = error_of(await c.call_tool("vault_history", {"revision_id": "r-nothing"}))
        hidden_p = error_of(await c.call_tool("vault_confirm", {"proposal_id": proposal_id}))
        missing_p = error_of(await c.call_tool("vault_confirm", {"proposal_id": "zzzzzzzz"}))
    assert hidden["error"] == missing["error"] == "not_found"
    assert set(hidden) == set(missing)
    assert hidden_p["error"] == missing_p["error"] == "proposal_not_found"
    assert hoard.writes.proposals(caller=OWNER).proposals[0].proposal_id == proposal_id


async def test_synthesis_history_omits_sources_the_caller_may_not_see(hoard: Hoard) -> None:
    result = hoard.honesty.syntheses.history("public/summary.md", caller=AGENT)

    sources = [s.path for r in result.registrations for s in r.sources]
    assert sources == ["public/target.md"]
