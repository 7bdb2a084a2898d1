"""Replicas sharing one PostgreSQL store and one vault folder: each keeps its own index, fed
by the others' changes through the outbox; each shows up in the roster; one of them runs
each once-only job, and another takes it over when it goes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.store import coordination
from hoard.adapters.store.pg import PostgresServer
from hoard.app.hoard import Hoard
from hoard.benchmark import pgcluster
from hoard.core.errors import Conflict
from hoard.core.policy import OWNER
from tests.helpers import note_text

FOUND_WITHIN_S = 1.0

Open = Callable[..., Hoard]


@pytest.fixture
def replicas(
    pg_store: str, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Open]:
    """Opens a replica ``name`` on the one vault and store, with a state folder (and so an
    index) of its own; every one opened is closed at teardown."""
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    opened: list[Hoard] = []

    def open_(name: str, *, watch: bool = False, closed_by_test: bool = False) -> Hoard:
        h = Hoard(vault, tmp_path / f"state-{name}", watch=watch, replica=name)
        if not closed_by_test:
            opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


@pytest.fixture
def server(pg_store: str) -> Iterator[PostgresServer]:
    s = PostgresServer(pg_store, "test")
    yield s
    s.close()


def _indexed(h: Hoard, rel: str) -> bool:
    """Whether ``rel`` is in the replica's own index (read directly: no stat walk runs)."""
    return (
        h.index.reader().execute("SELECT 1 FROM notes WHERE path = ?", (rel,)).fetchone()
        is not None
    )


def _found(h: Hoard, query: str) -> list[str]:
    return [hit.path for hit in h.searching.search(query, caller=OWNER).results]


def _outbox(server: PostgresServer) -> list[tuple[str, int, str]]:
    with server.connection() as conn:
        return [
            (str(p), int(e), str(r))
            for p, e, r in conn.execute("SELECT path, event_id, replica FROM outbox ORDER BY id")
        ]


def test_a_note_written_on_one_replica_is_found_by_search_on_another_within_a_second(
    replicas: Open, wait_until: Callable[..., object]
) -> None:
    a, b = replicas("a"), replicas("b")
    assert b.watcher is None and b.replica_link is not None
    wait_until(lambda: b.replica_link.follower.connected.is_set(), timeout=5)

    t0 = time.monotonic()
    a.writes.write(
        "team/otter.md", note_text("Otter", "the river otter is a mustelid"), caller=OWNER
    )
    wait_until(lambda: _indexed(b, "team/otter.md"), timeout=FOUND_WITHIN_S, interval=0.005)
    assert time.monotonic() - t0 < FOUND_WITHIN_S
    assert _found(b, "mustelid") == ["team/otter.md"]


def test_edits_moves_and_archives_on_one_replica_reach_the_others_index(
    replicas: Open, wait_until: Callable[..., object]
) -> None:
    a, b = replicas("a"), replicas("b")
    wait_until(lambda: b.replica_link.follower.connected.is_set(), timeout=5)
    written = a.writes.write(
        "team/heron.md", note_text("Heron", "a grey heron waits"), caller=OWNER
    )
    wait_until(lambda: _indexed(b, "team/heron.md"), timeout=FOUND_WITHIN_S)

    a.moves.move("team/heron.md", "birds/heron.md", written.revision, caller=OWNER)
    wait_until(
        lambda: _indexed(b, "birds/heron.md") and not _indexed(b, "team/heron.md"),
        timeout=FOUND_WITHIN_S,
    )
    moved = a.reading.read("birds/heron.md", caller=OWNER)
    a.writes.retirement.archive("birds/heron.md", "archived", moved.revision, caller=OWNER)
    wait_until(lambda: not _indexed(b, "birds/heron.md"), timeout=FOUND_WITHIN_S)


def test_every_change_leaves_one_outbox_row_naming_its_event_and_replica_and_a_refusal_none(
    replicas: Open, server: PostgresServer
) -> None:
    a = replicas("a")
    first = a.writes.write("team/wren.md", note_text("Wren", "small and loud"), caller=OWNER)
    with pytest.raises(Conflict):
        a.writes.write(
            "team/wren.md", note_text("Wren", "stale"), expected_revision="0" * 64, caller=OWNER
        )
    a.writes.write("team/wren.md", note_text("Wren", "small, loud"), first.revision, caller=OWNER)

    rows = _outbox(server)
    assert [(p, r) for p, _e, r in rows] == [("team/wren.md", "a"), ("team/wren.md", "a")]
    events = {e.event_id: e.decision for e in a.write_core.records.events_of("team/wren.md")}
    assert [events[e] for _p, e, _r in rows] == ["written", "written"]


def test_a_replica_follows_only_the_changes_after_its_start(
    replicas: Open, server: PostgresServer
) -> None:
    a = replicas("a")
    a.writes.write("team/lark.md", note_text("Lark", "sings at dawn"), caller=OWNER)
    b = replicas("b")
    assert b.replica_link is not None and b.replica_link.follower is not None
    assert b.replica_link.follower.applied == coordination.newest_change(server) > 0
    assert _indexed(b, "team/lark.md")  # from the folder, at its start


def test_the_change_feed_survives_a_restart_of_postgresql(
    replicas: Open, pg_cluster: pgcluster.Cluster, wait_until: Callable[..., object]
) -> None:
    a, b = replicas("a"), replicas("b")
    follower = b.replica_link.follower
    wait_until(lambda: follower.connected.is_set(), timeout=5)
    try:
        pg_cluster.stop()
        wait_until(lambda: not follower.connected.is_set(), timeout=10)
    finally:
        pg_cluster.start()
    wait_until(lambda: follower.connected.is_set(), timeout=10)

    wait_until(
        lambda: _try_write(a, "team/swift.md", note_text("Swift", "sleeps on the wing")),
        timeout=10,
    )
    wait_until(lambda: _indexed(b, "team/swift.md"), timeout=FOUND_WITHIN_S)


def _try_write(h: Hoard, rel: str, text: str) -> bool:
    """A write the pool may refuse once while it replaces connections the restart broke."""
    try:
        h.writes.write(rel, text, caller=OWNER)
    except Exception:
        return False
    return True


def test_the_roster_lists_the_running_replicas_and_forgets_one_that_stopped(
    replicas: Open, server: PostgresServer, wait_until: Callable[..., object]
) -> None:
    a, b = replicas("a", closed_by_test=True), replicas("b")

    def names() -> set[str]:
        return {r.name for r in coordination.recent_replicas(server, within_s=30)}

    wait_until(lambda: names() == {"a", "b"}, timeout=5)
    seen = {r.name: r for r in coordination.recent_replicas(server)}
    assert seen["a"].host and seen["a"].pid > 0 and seen["a"].version
    assert seen["a"].age_s < 30 and seen["a"].started_at <= seen["a"].seen_at

    a.close()
    assert names() == {"b"}
    assert b.replica_link is not None


def test_a_summary_registered_on_one_replica_is_known_stale_on_the_other_once_it_drifts(
    replicas: Open, wait_until: Callable[..., object]
) -> None:
    a, b = replicas("a"), replicas("b")
    a.writes.write("tech/source.md", note_text("Source", "okapi facts"), caller=OWNER)
    a.writes.write("tech/summary.md", note_text("Summary", "okapi summary"), caller=OWNER)
    a.honesty.syntheses.register("tech/summary.md", ["tech/source.md"], caller=OWNER)
    current = a.reading.read("tech/source.md", caller=OWNER).revision
    a.writes.write(
        "tech/source.md", note_text("Source", "okapi facts, revised"), current, caller=OWNER
    )

    def stale_on_b() -> bool:
        b.maintenance.reindex()
        hits = {h.path: h for h in b.searching.search("okapi", caller=OWNER).results}
        summary = hits.get("tech/summary.md")
        return summary is not None and any(
            w["kind"] == "synthesis" and w["state"] == "stale" for w in summary.warnings
        )

    wait_until(stale_on_b, timeout=5)
