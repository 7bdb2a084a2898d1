"""Jobs that must run once among replicas sharing a store: exactly one replica holds each
(the git sync, the outbox's pruning), and another takes it over within seconds when the
holder closes or is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.store import coordination
from hoard.adapters.store.leader import LeaderLock
from hoard.adapters.store.pg import PostgresServer
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import note_text

TAKEN_OVER_WITHIN_S = 3.0


@pytest.fixture
def server(pg_store: str) -> Iterator[PostgresServer]:
    s = PostgresServer(pg_store, "test")
    yield s
    s.close()


def test_exactly_one_of_two_replicas_may_sync_and_the_other_takes_over_when_it_closes(
    pg_store: str,
    vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    wait_until: Callable[..., object],
) -> None:
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    a = Hoard(vault, tmp_path / "state-a", replica="a")
    with Hoard(vault, tmp_path / "state-b", replica="b") as b:
        try:
            permits = {"a": a.sync.job.permit, "b": b.sync.job.permit}
            answers = {name: p.may_sync() for name, p in permits.items()}
            assert sorted(answers.values()) == [False, True]
            assert {name: p.may_sync() for name, p in permits.items()} == answers  # it stays
        finally:
            a.close()
        wait_until(permits["b"].may_sync, timeout=TAKEN_OVER_WITHIN_S)


HOLDER = textwrap.dedent(
    """
    import sys, time
    from hoard.adapters.store.leader import LeaderLock
    from hoard.adapters.store.pg import PostgresServer

    lock = LeaderLock(PostgresServer(sys.argv[1], "holder"), "sync")
    assert lock.held()
    print("held", flush=True)
    time.sleep(120)
    """
)


def test_a_job_held_by_a_killed_process_is_taken_over_within_seconds(
    pg_store: str, server: PostgresServer, wait_until: Callable[..., object]
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, pg_store], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        mine = LeaderLock(server, "sync")
        assert not mine.held()
        os.kill(holder.pid, signal.SIGKILL)
        wait_until(mine.held, timeout=TAKEN_OVER_WITHIN_S)
        assert mine.held()
        mine.release()
    finally:
        holder.kill()
        holder.wait(timeout=10)
        if holder.stdout is not None:
            holder.stdout.close()


def test_a_replica_that_lost_its_session_gives_the_job_up_and_can_take_it_again(
    server: PostgresServer,
) -> None:
    lock, rival = LeaderLock(server, "prune"), LeaderLock(server, "prune")
    assert lock.held() and not rival.held()
    with server.connection() as conn:  # the session is ended under the holder (a restart)
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'hoard test job prune' AND pid IN "
            "(SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)"
        )
    assert not lock.held()  # it notices, and never claims a lock it lost
    assert rival.held()
    assert not lock.held()
    rival.release()
    lock._failed_at = float("-inf")
    assert lock.held()
    lock.release()


def test_the_pruning_leader_removes_old_outbox_rows_and_long_gone_replicas(
    pg_store: str,
    server: PostgresServer,
    vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    with Hoard(vault, tmp_path / "state-a", replica="a") as a:
        a.writes.write("old.md", note_text("Old", "from long ago"), caller=OWNER)
        a.writes.write("new.md", note_text("New", "from today"), caller=OWNER)
        with server.connection() as conn:
            conn.execute("UPDATE outbox SET at = at - 2 * 86400 WHERE path = 'old.md'")
            conn.execute(
                "INSERT INTO replicas(name, started_at, seen_at, pid, host, version) "
                "VALUES('gone', 0, 0, 1, 'elsewhere', '0.0.1')"
            )
        housekeeping = a.replica_link.housekeeping
        housekeeping._pruned_at = float("-inf")
        housekeeping.tick()
        with server.connection() as conn:
            paths = [r[0] for r in conn.execute("SELECT path FROM outbox")]
            names = [r[0] for r in conn.execute("SELECT name FROM replicas")]
        assert paths == ["new.md"]
        assert names == ["a"]
        assert [r.name for r in coordination.recent_replicas(server)] == ["a"]
