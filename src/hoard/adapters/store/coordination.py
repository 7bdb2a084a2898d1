"""What the replicas of a vault sharing a PostgreSQL store tell each other (the
``coordination`` component; a store of files has none of it, one process needs none).

- ``outbox``: one row for each change to a note, inserted by the ledger in the transaction
  that records the change's outcome, followed by ``NOTIFY hoard_changes`` with the row's
  id. Every replica follows it to refresh its own index (:mod:`hoard.adapters.store.replica`).
  Ledger transactions are serialised across replicas, so ids commit in increasing order and
  "the rows after the last id applied" misses none. The leader prunes rows older than
  :data:`OUTBOX_KEEP_S`.
- ``replicas``: each replica's heartbeat (name, when it started, when last seen, pid,
  host, version); :func:`recent_replicas` lists the ones seen recently.

Times are the database server's clock (seconds since the epoch), so replicas on machines
whose clocks differ agree on them. Nothing here imports psycopg: the functions are given a
:class:`~hoard.adapters.store.pg.PostgresServer` (or an open transaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hoard.adapters.store.pg import PostgresServer

CHANNEL = "hoard_changes"
"""The ``NOTIFY`` channel of the outbox; the payload is the new row's id."""

OUTBOX_KEEP_S = 86_400.0
"""Outbox rows older than this are pruned (a replica away longer rebuilds from the folder)."""

REPLICA_KEEP_S = 86_400.0
"""Replicas not seen for this long leave the roster at the next prune."""

NOW = "extract(epoch FROM clock_timestamp())::float8"
"""The database server's clock, in seconds since the epoch."""

MIGRATIONS: tuple[str, ...] = (
    # 1: the change feed and the roster of replicas
    """
    CREATE TABLE outbox(
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      path TEXT NOT NULL,
      event_id INTEGER NOT NULL,
      replica TEXT NOT NULL,
      at REAL NOT NULL
    );
    CREATE INDEX outbox_at ON outbox(at);
    CREATE TABLE replicas(
      name TEXT PRIMARY KEY,
      started_at REAL NOT NULL,
      seen_at REAL NOT NULL,
      pid INTEGER NOT NULL,
      host TEXT NOT NULL,
      version TEXT NOT NULL
    );
    """,
)


@dataclass(frozen=True, slots=True)
class Change:
    """One outbox row: ``path`` changed (event ``event_id``) through ``replica``."""

    change_id: int
    path: str
    event_id: int
    replica: str


@dataclass(frozen=True, slots=True)
class ReplicaSeen:
    """One replica of the roster; ``age_s``: seconds since its last heartbeat."""

    name: str
    started_at: float
    seen_at: float
    age_s: float
    pid: int
    host: str
    version: str


class Outbox:
    """The ledger's :class:`~hoard.adapters.ledger.store.ChangeOutbox` on PostgreSQL: the
    row and the notification are part of the statement that inserts the change's event (a
    notification is delivered when, and only if, its transaction commits)."""

    def __init__(self, replica: str) -> None:
        self.replica = replica

    def announce(self, event: str, path: str) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:
        return (
            f"o AS (INSERT INTO outbox(path, event_id, replica, at) "
            f"SELECT ?, event_id, ?, {NOW} FROM {event} RETURNING id)",
            (path, self.replica),
            "(SELECT pg_notify(?, o.id::text || ' ' || ?) FROM o)",
            (CHANNEL, self.replica),
        )


def newest_change(server: PostgresServer) -> int:
    """The id of the newest outbox row (0: none): a replica starting now follows the rows
    after it (its index is built from the folder, which has every change before)."""
    with server.connection() as conn:
        row = conn.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()
    return int(row[0]) if row else 0


CHANGES_AFTER = "SELECT id, path, event_id, replica FROM outbox WHERE id > %s ORDER BY id LIMIT %s"
"""The outbox rows after an id, oldest first (psycopg's placeholders: it runs on a
dedicated connection)."""


def prune(server: PostgresServer, keep_s: float = OUTBOX_KEEP_S) -> tuple[int, int]:
    """Remove outbox rows older than ``keep_s`` and replicas not seen for
    :data:`REPLICA_KEEP_S`; how many of each (the leader's job)."""
    with server.connection() as conn, conn.transaction():
        changes = conn.execute(f"DELETE FROM outbox WHERE at < {NOW} - %s", (keep_s,)).rowcount
        gone = conn.execute(
            f"DELETE FROM replicas WHERE seen_at < {NOW} - %s", (REPLICA_KEEP_S,)
        ).rowcount
    return changes, gone


def heartbeat(
    server: PostgresServer, name: str, started_at: float, pid: int, host: str, version: str
) -> None:
    """Say that replica ``name`` is alive now (``started_at``: this process's start)."""
    with server.connection() as conn:
        conn.execute(
            "INSERT INTO replicas(name, started_at, seen_at, pid, host, version) "
            f"VALUES(%s, %s, {NOW}, %s, %s, %s) ON CONFLICT(name) DO UPDATE SET "
            "started_at = excluded.started_at, seen_at = excluded.seen_at, pid = excluded.pid, "
            "host = excluded.host, version = excluded.version",
            (name, started_at, pid, host, version),
        )


def leave(server: PostgresServer, name: str) -> None:
    """Replica ``name`` stopped cleanly: off the roster."""
    with server.connection() as conn:
        conn.execute("DELETE FROM replicas WHERE name = %s", (name,))


def recent_replicas(server: PostgresServer, within_s: float = 30.0) -> list[ReplicaSeen]:
    """The replicas whose last heartbeat is at most ``within_s`` old, most recent first
    (``hoard store check``)."""
    with server.connection() as conn:
        rows = conn.execute(
            f"SELECT name, started_at, seen_at, {NOW} - seen_at, pid, host, version "
            f"FROM replicas WHERE seen_at >= {NOW} - %s ORDER BY seen_at DESC, name",
            (within_s,),
        ).fetchall()
    return [
        ReplicaSeen(
            name=str(n),
            started_at=float(s),
            seen_at=float(seen),
            age_s=max(0.0, float(age)),
            pid=int(p),
            host=str(h),
            version=str(v),
        )
        for n, s, seen, age, p, h, v in rows
    ]
