"""The per-request time budget (issue 18 item 4): past its deadline a search or a link read
stops and answers with what it has, labeled, instead of running on."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.adapters.index.deadline import interrupting, is_interrupt
from hoard.adapters.index.graph import link_page, note_id
from hoard.adapters.search.fallback import SubstringSearcher
from hoard.adapters.search.types import SearchRequest
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.core.result_warnings import time_budget_warning
from tests.helpers import make_vault, nearest_found

COUNT_TO_A_BILLION = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) "
    "SELECT count(*) FROM c"
)


def test_sqlite_stops_a_statement_that_runs_past_the_deadline() -> None:
    conn = sqlite3.connect(":memory:")
    t0 = time.monotonic()
    with interrupting(conn, t0 + 0.05) as clock, pytest.raises(sqlite3.OperationalError) as err:
        conn.execute(COUNT_TO_A_BILLION).fetchone()
    assert is_interrupt(err.value)
    assert time.monotonic() - t0 < 5
    assert clock.expired()


def test_the_connection_runs_unbudgeted_again_after_the_block() -> None:
    conn = sqlite3.connect(":memory:")
    with interrupting(conn, time.monotonic() - 1):
        pass
    small = COUNT_TO_A_BILLION.replace("1000000000", "100000")
    assert conn.execute(small).fetchone() == (100000,)


def test_no_deadline_means_no_budget() -> None:
    conn = sqlite3.connect(":memory:")
    with interrupting(conn, None) as clock:
        small = COUNT_TO_A_BILLION.replace("1000000000", "200000")
        assert conn.execute(small).fetchone() == (200000,)
    assert not clock.expired()
    assert not clock.hit


def test_a_damaged_file_is_not_taken_for_an_interrupt() -> None:
    assert not is_interrupt(sqlite3.DatabaseError("database disk image is malformed"))
    assert not is_interrupt(sqlite3.OperationalError("database is locked"))


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    notes = {
        "fish/marlin.md": "---\ntitle: Marlin\n---\nThe blue marlin is a fast fish.\n",
        "fish/tuna.md": "---\ntitle: Tuna\n---\nA tuna is a fast fish too.\n",
        "myth/merlin.md": "---\ntitle: Merlin\n---\nThe wizard of legend.\n",
        "hub.md": "---\ntitle: Hub\n---\n"
        + " ".join(f"[[note {i}]]" for i in range(20_000))
        + "\n",
    }
    h = Hoard(make_vault(tmp_path / "vault", notes), tmp_path / "state")
    yield h
    h.close()


def test_a_search_past_its_deadline_is_labeled_and_keeps_only_what_it_found(
    hoard: Hoard,
) -> None:
    full = hoard.searcher.search(SearchRequest("marlin", 10))
    assert not full.timed_out
    assert "myth/merlin.md" in [h.path for h in full.hits]  # the typo fill found it
    cut = hoard.searcher.search(SearchRequest("marlin", 10, deadline=time.monotonic() - 1))
    assert cut.timed_out
    # The typo fill is skipped once the budget is spent; what is left was found exactly.
    assert {h.path for h in cut.hits} <= {"fish/marlin.md"}


def test_a_semantic_blend_the_budget_skipped_is_not_reported_as_done(hoard: Hoard) -> None:
    near = nearest_found([("myth/merlin.md", 0.9)])
    req = SearchRequest("marlin", 10, semantic=near, semantic_weight=0.8, semantic_asked=1)
    assert hoard.searcher.search(req).blended
    cut = hoard.searcher.search(dataclasses.replace(req, deadline=time.monotonic() - 1))
    assert cut.timed_out
    assert not cut.blended  # the app labels it fts5, not fts5+semantic


def test_the_substring_fallback_stops_at_the_deadline_too(hoard: Hoard) -> None:
    fallback = SubstringSearcher(hoard.vault, hoard.config)
    assert not fallback.search(SearchRequest("fast fish")).timed_out
    cut = fallback.search(SearchRequest("fast fish", deadline=time.monotonic() - 1))
    assert cut.timed_out
    assert cut.hits == []


def test_a_link_read_past_its_deadline_keeps_what_it_read(hoard: Hoard) -> None:
    hoard.reading.links("hub.md", caller=OWNER)  # indexed, links and all
    conn = hoard.index.reader()
    row = note_id(conn, "hub.md")
    assert row is not None
    whole = link_page(conn, row, "hub.md", 501, 0, None)
    assert len(whole.outgoing) == 501
    assert not whole.timed_out
    # 20,000 links sorted by line: far more SQLite steps than one look at the clock.
    cut = link_page(conn, row, "hub.md", 501, 0, time.monotonic() - 1)
    assert cut.timed_out
    assert cut.outgoing == [] and cut.backlinks == []


def test_the_budget_warning_names_the_limit_and_says_whether_anything_was_found() -> None:
    found = time_budget_warning(2000, found=True)
    assert found["kind"] == "time_budget"
    assert found["budget_ms"] == 2000
    assert "limits.request_time_ms" in found["message"]
    assert "what was found" in found["message"]
    assert "nothing was found" in time_budget_warning(50, found=False)["message"]
