"""Reads and searches of a registered summary carry its synthesis state; the tools exist."""

from __future__ import annotations

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, OWNER
from hoard.surfaces.mcp.server import HoardMCP


def _synthesis(warnings: list[dict]) -> list[dict]:
    return [w for w in warnings if w.get("kind") == "synthesis"]


def test_reading_a_summary_whose_source_changed_warns_and_names_the_source(hoard: Hoard, edit_note):
    edit_note("tech/source.md", "the bridge firmware is 2024.08.2")
    edit_note("tech/summary.md", "summary: bridge firmware is current")
    hoard.honesty.syntheses.register("tech/summary.md", ["tech/source.md"], caller=hoard.owner)

    assert (
        _synthesis(hoard.reading.read("tech/summary.md", caller=OWNER).warnings) == []
    )  # current: no warning

    edit_note("tech/source.md", "the bridge firmware is 2025.01.0")
    warning = _synthesis(hoard.reading.read("tech/summary.md", caller=OWNER).warnings)[0]

    assert warning["state"] == "stale"
    assert [d["path"] for d in warning["drifted"]] == ["tech/source.md"]


def test_a_search_hit_that_is_a_stale_summary_carries_the_warning(hoard: Hoard, edit_note):
    edit_note("tech/source.md", "pangolin facts")
    edit_note("tech/summary.md", "pangolin summary")
    hoard.honesty.syntheses.register("tech/summary.md", ["tech/source.md"], caller=hoard.owner)
    edit_note("tech/source.md", "pangolin facts, revised")
    hoard.maintenance.reindex()

    hits = {h.path: h for h in hoard.searching.search("pangolin", caller=OWNER).results}

    assert _synthesis(hits["tech/summary.md"].warnings)[0]["state"] == "stale"
    assert _synthesis(hits["tech/source.md"].warnings) == []


def test_a_note_that_is_no_summary_reads_without_synthesis_warnings(hoard: Hoard, edit_note):
    edit_note("tech/plain.md", "nothing registered here")

    assert _synthesis(hoard.reading.read("tech/plain.md", caller=OWNER).warnings) == []


@pytest.mark.anyio
async def test_the_mcp_server_offers_the_claim_and_synthesis_tools(hoard: Hoard) -> None:
    async with Client(HoardMCP(hoard, LOCAL_DEFAULT).server) as client:
        names = {t.name for t in (await client.list_tools()).tools}

    assert {
        "claim_record",
        "claim_get",
        "claim_list",
        "synthesis_register",
        "synthesis_status",
    } <= names
