"""The ledger: durable, never rebuilt, append-only where history matters.

It lives in ``ledger.db`` of the state folder, or in the shared PostgreSQL store of a
vault's replicas (:mod:`hoard.adapters.store`). Schema changes are numbered migrations
applied in order; a ledger from a newer hoard is refused rather than guessed at. This
module holds the schema and the grant/access-request records; the other ledger modules add
their records over the same connections.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hoard.adapters.store.sql import Database, SqlConn
from hoard.adapters.store.sqlite_db import SqliteDatabase
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.policy import Grant

MIGRATIONS: tuple[str, ...] = (
    # 1: grants and access requests
    """
    CREATE TABLE grants(
      grant_id TEXT PRIMARY KEY,
      caller TEXT NOT NULL,
      glob TEXT NOT NULL,
      created_at REAL NOT NULL,
      expires_at REAL NOT NULL,
      revoked_at REAL,
      request_id TEXT
    );
    CREATE INDEX grants_caller ON grants(caller);
    CREATE TABLE access_requests(
      request_id TEXT PRIMARY KEY,
      caller TEXT NOT NULL,
      glob TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at REAL NOT NULL,
      decided_at REAL,
      decision TEXT
    );
    """,
    # 2: preserved revisions, mutation events, proposals, the transaction journal.
    # Append-only: decisions and outcomes are rows of their own, never updates.
    """
    CREATE TABLE revisions(
      revision_id TEXT PRIMARY KEY,
      path TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size INTEGER NOT NULL,
      content BLOB NOT NULL,
      reason TEXT NOT NULL,
      caller TEXT NOT NULL,
      at REAL NOT NULL
    );
    CREATE INDEX revisions_path ON revisions(path, at);
    CREATE TABLE events(
      event_id INTEGER PRIMARY KEY AUTOINCREMENT,
      at REAL NOT NULL,
      tool TEXT NOT NULL,
      caller TEXT NOT NULL,
      path TEXT,
      before TEXT,
      after TEXT,
      decision TEXT NOT NULL,
      reason TEXT
    );
    CREATE INDEX events_path ON events(path, event_id);
    CREATE TABLE proposals(
      proposal_id TEXT PRIMARY KEY,
      caller TEXT NOT NULL,
      tool TEXT NOT NULL,
      path TEXT NOT NULL,
      content BLOB NOT NULL,
      expected_revision TEXT,
      base_revision TEXT,
      args TEXT NOT NULL,
      diff TEXT NOT NULL,
      created_at REAL NOT NULL,
      expires_at REAL NOT NULL
    );
    CREATE TABLE proposal_decisions(
      proposal_id TEXT PRIMARY KEY REFERENCES proposals(proposal_id),
      decision TEXT NOT NULL,
      caller TEXT NOT NULL,
      at REAL NOT NULL
    );
    CREATE TABLE transactions(
      txn_id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      intent TEXT NOT NULL,
      checksum TEXT NOT NULL,
      caller TEXT NOT NULL,
      at REAL NOT NULL
    );
    CREATE TABLE transaction_blobs(
      txn_id TEXT NOT NULL REFERENCES transactions(txn_id),
      path TEXT NOT NULL,
      content BLOB NOT NULL,
      PRIMARY KEY(txn_id, path)
    );
    CREATE TABLE transaction_outcomes(
      outcome_id INTEGER PRIMARY KEY AUTOINCREMENT,
      txn_id TEXT NOT NULL REFERENCES transactions(txn_id),
      state TEXT NOT NULL,
      detail TEXT,
      at REAL NOT NULL
    );
    CREATE INDEX transaction_outcomes_txn ON transaction_outcomes(txn_id, outcome_id);
    """,
    # 3: an outcome event names the intent it completes (crash reconciliation)
    """
    ALTER TABLE events ADD COLUMN intent_id INTEGER;
    CREATE INDEX events_intent ON events(intent_id);
    """,
    # 4: claims and synthesis registrations (append-only: supersession and re-registration
    # insert newer rows)
    """
    CREATE TABLE claims(
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      claim_id TEXT NOT NULL UNIQUE,
      subject TEXT NOT NULL,
      property TEXT NOT NULL,
      scope TEXT NOT NULL,
      value TEXT NOT NULL,
      source_path TEXT NOT NULL,
      source_revision TEXT NOT NULL,
      valid_from REAL,
      valid_until REAL,
      supersedes TEXT REFERENCES claims(claim_id),
      caller TEXT NOT NULL,
      recorded_at REAL NOT NULL
    );
    CREATE INDEX claims_key ON claims(subject, property, scope);
    CREATE INDEX claims_source ON claims(source_path);
    CREATE UNIQUE INDEX claims_supersedes ON claims(supersedes) WHERE supersedes IS NOT NULL;
    CREATE TABLE syntheses(
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      registration_id TEXT NOT NULL UNIQUE,
      path TEXT NOT NULL,
      caller TEXT NOT NULL,
      created_at REAL NOT NULL
    );
    CREATE INDEX syntheses_path ON syntheses(path, seq);
    CREATE TABLE synthesis_sources(
      registration_id TEXT NOT NULL REFERENCES syntheses(registration_id),
      position INTEGER NOT NULL,
      path TEXT NOT NULL,
      revision TEXT NOT NULL,
      PRIMARY KEY(registration_id, position)
    );
    CREATE INDEX synthesis_sources_path ON synthesis_sources(path);
    """,
    # 5: the bytes of every revision hoard wrote or saw saved outside, by SHA-256 (one row
    # per content), and saves from outside that replaced an agent's write, with the owner's
    # decision on each
    """
    CREATE TABLE kept_bytes(sha256 TEXT PRIMARY KEY, content BLOB NOT NULL);
    CREATE TABLE clobbers(
      event_id INTEGER PRIMARY KEY REFERENCES events(event_id),
      path TEXT NOT NULL,
      written TEXT NOT NULL,
      written_by TEXT NOT NULL,
      written_at REAL NOT NULL,
      outside TEXT NOT NULL,
      at REAL NOT NULL
    );
    CREATE TABLE clobber_decisions(
      event_id INTEGER PRIMARY KEY REFERENCES clobbers(event_id),
      decision TEXT NOT NULL,
      caller TEXT NOT NULL,
      at REAL NOT NULL
    );
    """,
    # 6: the replica that recorded an intent or journaled a transaction (its startup settles
    # only its own; NULL: hoard before replicas, settled by whoever starts), and each note's
    # head (the revision hoard's last write left, in the outcome's transaction) that a
    # replica with a stale view of the shared folder is refused against
    """
    ALTER TABLE events ADD COLUMN replica TEXT;
    ALTER TABLE transactions ADD COLUMN replica TEXT;
    CREATE TABLE note_heads(
      path TEXT PRIMARY KEY,
      revision TEXT,
      event_id INTEGER NOT NULL
    );
    """,
)


@dataclass(frozen=True, slots=True)
class AccessRequest:
    request_id: str
    caller: str
    glob: str
    reason: str
    created_at: float
    decision: str | None


def new_id(n: int = 8) -> str:
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(n))


class ChangeOutbox(Protocol):
    """The change feed of replicas sharing a PostgreSQL store: each event that changed a note
    is announced by the statement that inserts it (see :mod:`hoard.adapters.ledger.events`)."""

    def announce(self, event: str, path: str) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:
        """What an event's insert adds to announce it: a ``WITH`` clause (and its
        parameters) reading the new id from the clause named ``event``, and a column to
        select (and its parameters)."""
        ...


class Ledger:
    """The ledger's records over one :class:`~hoard.adapters.store.sql.Database`."""

    def __init__(self, db: Database, outbox: ChangeOutbox | None = None) -> None:
        self.db = db
        self.outbox = outbox
        self.replica: str | None = None
        """This replica's name on a shared store: recorded on its intents and journaled
        transactions, whose recovery is its own (``None``: one process owns every row)."""
        # When proposals and grants are made and when they expire are read from this clock.
        self.clock: Callable[[], float] = time.time
        self._grants_cache: tuple[float, list[Grant]] | None = None

    @classmethod
    def open_file(cls, path: Path) -> Ledger:
        """The ledger of one process: ``ledger.db`` in its state folder."""
        return cls(SqliteDatabase(path, MIGRATIONS))

    @property
    def schema_version(self) -> int:
        return self.db.schema_version

    def transaction(self, durable: bool = True) -> contextlib.AbstractContextManager[SqlConn]:
        """One write transaction. ``durable=False`` commits without waiting for the disk
        (safe against a crash of this process, not of the machine); only for rows that can
        be rebuilt after a power loss, such as the outcome of a change whose durable intent
        row is reconciled from the file at the next start."""
        return self.db.transaction(durable)

    def read(self) -> contextlib.AbstractContextManager[SqlConn]:
        """A connection to read with; inside this thread's own transaction it is the
        writer's, which sees the uncommitted rows."""
        return self.db.read()

    def close(self) -> None:
        self.db.close()

    # -- grants ------------------------------------------------------------------------------

    def add_grant(
        self, caller: str, glob: str, minutes: float, request_id: str | None = None
    ) -> Grant:
        if not caller or not glob.strip():
            raise InvalidArgument("a grant needs a caller and a glob")
        if not 0 < minutes <= 7 * 24 * 60:
            raise InvalidArgument("--minutes must be between 0 and 10080 (one week)")
        now = self.clock()
        grant = Grant(new_id(), caller, glob.strip(), now + minutes * 60)
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO grants(grant_id, caller, glob, created_at, expires_at, request_id) "
                "VALUES(?,?,?,?,?,?)",
                (grant.grant_id, caller, grant.glob, now, grant.expires_at, request_id),
            )
        self._grants_cache = None
        return grant

    def revoke_grant(self, grant_id: str) -> None:
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE grants SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                (self.clock(), grant_id),
            )
            if cur.rowcount == 0:
                raise NotFound(f"no active grant {grant_id!r}", grant_id=grant_id)
        self._grants_cache = None

    def active_grants(self, now: float | None = None) -> list[Grant]:
        """Unexpired, unrevoked grants. One process caches them for a second (grants are
        minutes long, and its own changes clear the cache); replicas sharing a store read
        them every time, so a grant revoked on one is refused on every other at once."""
        now = self.clock() if now is None else now
        cached = self._grants_cache if self.db.engine == "sqlite" else None
        if cached is not None and now - cached[0] < 1.0:
            return [g for g in cached[1] if g.expires_at > now]
        with self.read() as conn:
            rows = conn.execute(
                "SELECT grant_id, caller, glob, expires_at FROM grants "
                "WHERE revoked_at IS NULL AND expires_at > ? ORDER BY expires_at",
                (now,),
            ).fetchall()
        grants = [Grant(*r) for r in rows]
        self._grants_cache = (now, grants)
        return grants

    # -- access requests ------------------------------------------------------------------------

    def request_access(self, caller: str, glob: str, reason: str) -> AccessRequest:
        if not glob.strip():
            raise InvalidArgument("glob must not be empty")
        if not reason.strip():
            raise InvalidArgument("say why you need access (reason)")
        req = AccessRequest(
            request_id=new_id(),
            caller=caller,
            glob=glob.strip(),
            reason=reason.strip()[:2000],
            created_at=time.time(),
            decision=None,
        )
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO access_requests(request_id, caller, glob, reason, created_at) "
                "VALUES(?,?,?,?,?)",
                (req.request_id, req.caller, req.glob, req.reason, req.created_at),
            )
        return req

    def pending_requests(self) -> list[AccessRequest]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT request_id, caller, glob, reason, created_at, decision "
                "FROM access_requests WHERE decision IS NULL ORDER BY created_at"
            ).fetchall()
        return [AccessRequest(*r) for r in rows]

    def approve_request(self, request_id: str, minutes: float) -> Grant:
        """Approve a pending request: its grant and its decision in one transaction, so of
        two approvals racing (in one process or on two replicas) exactly one grants."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT caller, glob, decision FROM access_requests WHERE request_id = ?",
                (request_id,),
            ).fetchone()
            if row is None or row[2] is not None:
                raise NotFound(f"no pending access request {request_id!r}", request_id=request_id)
            grant = self.add_grant(row[0], row[1], minutes, request_id=request_id)
            conn.execute(
                "UPDATE access_requests SET decided_at = ?, decision = 'approved' "
                "WHERE request_id = ?",
                (time.time(), request_id),
            )
        return grant
