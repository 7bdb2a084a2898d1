"""Reads of the ledger run beside its writes: each thread reads through its own connection
(WAL), so a read never waits for another thread's commit, and a read inside a thread's own
transaction sees that transaction's rows."""

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from hoard.adapters.ledger.store import Ledger
from tests.helpers import wait_until

GRANTS = "SELECT grant_id FROM grants ORDER BY grant_id"


def _insert_grant(conn: sqlite3.Connection, grant_id: str) -> None:
    conn.execute(
        "INSERT INTO grants(grant_id, caller, glob, created_at, expires_at) "
        "VALUES(?, 'agent', 'secret/**', ?, ?)",
        (grant_id, time.time(), time.time() + 600),
    )


@pytest.fixture
def ledger(tmp_path: Path):
    led = Ledger.open_file(tmp_path / "ledger.db")
    yield led
    led.close()


def test_a_read_does_not_wait_for_another_threads_open_write_transaction(ledger: Ledger) -> None:
    with ledger.transaction() as conn:
        _insert_grant(conn, "committed")
    inside, release = threading.Event(), threading.Event()

    def writer() -> None:
        with ledger.transaction() as conn:
            _insert_grant(conn, "pending")
            inside.set()
            release.wait(10)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert inside.wait(5)
        seen: list[list[str]] = []

        def reader() -> None:
            with ledger.read() as conn:
                seen.append([r[0] for r in conn.execute(GRANTS)])

        r = threading.Thread(target=reader)
        r.start()
        r.join(5)
        assert not r.is_alive(), "the read waited for the other thread's transaction"
        assert seen == [["committed"]]
    finally:
        release.set()
        t.join(10)
    with ledger.read() as conn:
        assert [r[0] for r in conn.execute(GRANTS)] == ["committed", "pending"]


def test_a_read_inside_a_transaction_sees_the_transactions_own_rows(ledger: Ledger) -> None:
    with ledger.transaction() as conn:
        _insert_grant(conn, "mine")
        with ledger.read() as rconn:
            assert [r[0] for r in rconn.execute(GRANTS)] == ["mine"]


def test_a_rolled_back_transaction_leaves_reads_on_their_own_connection(ledger: Ledger) -> None:
    with pytest.raises(RuntimeError), ledger.transaction() as conn:
        _insert_grant(conn, "gone")
        raise RuntimeError("refused")
    with ledger.read() as rconn:
        assert rconn is not ledger.db._conn  # type: ignore[attr-defined]
        assert rconn.execute(GRANTS).fetchall() == []


def test_reads_cannot_write(ledger: Ledger) -> None:
    with ledger.read() as conn, pytest.raises(sqlite3.OperationalError):
        _insert_grant(conn, "sneaky")


def test_closing_the_ledger_closes_the_readers_of_every_thread(tmp_path: Path) -> None:
    led = Ledger.open_file(tmp_path / "ledger.db")
    conns: list[sqlite3.Connection] = []
    stop = threading.Event()

    def worker() -> None:
        with led.read() as conn:
            conns.append(conn)
        stop.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        wait_until(lambda: conns)
        led.close()
        with pytest.raises(sqlite3.ProgrammingError):
            conns[0].execute("SELECT 1")
    finally:
        stop.set()
        t.join(10)
