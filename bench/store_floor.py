"""The floor under what a PostgreSQL store adds to a write, measured in the same run as
``bench/replicas.py``'s set-ups (one sample batch per round, in turns with them):

- ``round_trip``: one bare psycopg round trip (``SELECT 1``) to the same cluster;
- ``commit``: one bare round trip that commits a transaction (``BEGIN``, one insert,
  ``COMMIT`` in one pipeline), with ``synchronous_commit`` as the cluster has it;
- ``store_calls``: the store's part of one write through hoard's own adapters, without HTTP,
  files or the index: the note's lock, the check of its head, the intent's transaction, the
  outcome's transaction, the unlock; ``sqlite_store_calls``: the same on a SQLite ledger and
  file locks (what one process pays instead).

A write on PostgreSQL needs at least the callers' version read, the lock, the head, two
transactions and the unlock: four round trips and two commits are its floor.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import psycopg

from hoard.adapters.ledger import heads, kept
from hoard.adapters.ledger.records import Records
from hoard.adapters.ledger.store import MIGRATIONS, Ledger
from hoard.adapters.store.coordination import Outbox
from hoard.adapters.store.locks import FileLocks, PathLocks
from hoard.adapters.store.pg import PostgresServer
from hoard.adapters.store.pg_locks import PostgresLocks
from hoard.core.note import revision_of

BODY = b"---\ntitle: Floor\n---\nline %d\n"


class Floor:
    """The floor's connections (a PostgreSQL database with hoard's schema, and a SQLite
    ledger in a temporary folder) and its samples, in milliseconds."""

    def __init__(self, url: str) -> None:
        self.samples: dict[str, list[float]] = {
            "round_trip": [],
            "commit": [],
            "store_calls": [],
            "sqlite_store_calls": [],
        }
        self.raw = psycopg.connect(url, autocommit=True)
        self.raw.execute(b"CREATE TABLE IF NOT EXISTS hoard_floor(v TEXT)")
        self.server = PostgresServer(url, "floor")
        self.pg_ledger = Ledger(self.server.database("ledger", MIGRATIONS), Outbox("floor"))
        self.pg_ledger.replica = "floor"
        self.pg_locks = PostgresLocks(self.server)
        self.tmp = tempfile.TemporaryDirectory()
        self.sqlite_ledger = Ledger.open_file(Path(self.tmp.name) / "ledger.db")
        self.file_locks = FileLocks(Path(self.tmp.name) / "locks")
        (Path(self.tmp.name) / "locks").mkdir()
        self.k = 0

    def round(self, n: int) -> None:
        for _ in range(n):
            self.samples["round_trip"].append(_timed(lambda: self.raw.execute(b"SELECT 1")))
            self.samples["commit"].append(_timed(self._commit))
            self.samples["store_calls"].append(
                _timed(lambda: self._write(self.pg_ledger, self.pg_locks))
            )
            self.samples["sqlite_store_calls"].append(
                _timed(lambda: self._write(self.sqlite_ledger, self.file_locks))
            )

    def _commit(self) -> None:
        with self.raw.pipeline():
            self.raw.execute(b"BEGIN")
            self.raw.execute("INSERT INTO hoard_floor(v) VALUES(%s)", ("x",))
            self.raw.execute(b"COMMIT")

    def _write(self, ledger: Ledger, locks: PathLocks) -> None:
        self.k += 1
        old, new = BODY % (self.k - 1), BODY % self.k
        with locks.lock("floor.md"):
            heads.stale_view(ledger, "floor.md", revision_of(old))
            intent, _ = Records(ledger).begin_change(
                "vault_write", "bench", "floor.md", old, revision_of(new), "overwrite"
            )
            kept.record_written(ledger, "vault_write", "bench", "floor.md", None, new, intent)

    def close(self) -> None:
        self.pg_locks.close()
        self.pg_ledger.close()
        self.server.close()
        self.sqlite_ledger.close()
        self.raw.close()
        self.tmp.cleanup()


def _timed(fn: object) -> float:
    assert callable(fn)
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000
