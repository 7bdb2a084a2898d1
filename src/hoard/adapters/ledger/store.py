"""The ledger, ``ledger.db``: durable, never rebuilt, append-only where history matters.

Schema changes are numbered migrations applied in order inside one transaction each
(``PRAGMA user_version`` records how far a file has come); a ledger from a newer hoard is
refused rather than guessed at. This module holds the connection discipline and the
grant/access-request records; later layers add their tables as new migrations.
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hoard.core.errors import InvalidArgument, IoError, NotFound
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


class _Reader:
    """A thread's read connection; it closes with the thread (sqlite3 connections take no
    weak references, their holder does)."""

    __slots__ = ("__weakref__", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        # When proposals are made and when they expire are read from this clock.
        self.clock: Callable[[], float] = time.time
        self._lock = threading.RLock()
        self._local = threading.local()
        # Weak, so a worker thread's reader closes when the thread ends (thread pools churn).
        self._readers: weakref.WeakSet[_Reader] = weakref.WeakSet()
        self._readers_lock = threading.Lock()
        self._conn = sqlite3.connect(
            path, timeout=10.0, check_same_thread=False, isolation_level=None
        )
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        if version > len(MIGRATIONS):
            self._conn.close()
            raise IoError(
                f"{path} was written by a newer hoard (schema {version}; this one knows "
                f"{len(MIGRATIONS)}); refusing to touch it"
            )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._migrate()
        self._grants_cache: tuple[float, list[Grant]] | None = None

    def _migrate(self) -> None:
        with self._lock:
            version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
            if version > len(MIGRATIONS):
                raise IoError(
                    f"{self.path} was written by a newer hoard (schema {version}; this one "
                    f"knows {len(MIGRATIONS)}); refusing to touch it"
                )
            for number in range(version, len(MIGRATIONS)):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in _statements(MIGRATIONS[number]):
                        self._conn.execute(stmt)
                    self._conn.execute(f"PRAGMA user_version = {number + 1}")
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def transaction(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction. ``durable=False`` commits without waiting for the disk
        (``synchronous=NORMAL``: safe against a crash of this process, not of the machine);
        only for rows that can be rebuilt after a power loss, such as the outcome of a change
        whose durable intent row is reconciled from the file at the next start."""
        with self._lock:
            if not durable:
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._local.writing = getattr(self._local, "writing", 0) + 1
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
            finally:
                self._local.writing -= 1
                if not durable:
                    self._conn.execute("PRAGMA synchronous=FULL")

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection to read with. Each thread has its own (WAL lets readers run beside
        a writer), so a read never waits for another thread's commit and its fsync; inside
        this thread's own transaction it is the writer's, which sees the uncommitted rows."""
        if getattr(self._local, "writing", 0):
            yield self._conn
            return
        reader: _Reader | None = getattr(self._local, "reader", None)
        if reader is None:
            conn = sqlite3.connect(
                self.path, timeout=10.0, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA query_only=ON")
            reader = _Reader(conn)
            with self._readers_lock:
                self._readers.add(reader)
            self._local.reader = reader
        yield reader.conn

    def close(self) -> None:
        with self._readers_lock:
            readers = list(self._readers)
            self._readers.clear()
        for reader in readers:
            reader.conn.close()
        with self._lock:
            self._conn.close()

    # -- grants ------------------------------------------------------------------------------

    def add_grant(
        self, caller: str, glob: str, minutes: float, request_id: str | None = None
    ) -> Grant:
        if not caller or not glob.strip():
            raise InvalidArgument("a grant needs a caller and a glob")
        if not 0 < minutes <= 7 * 24 * 60:
            raise InvalidArgument("--minutes must be between 0 and 10080 (one week)")
        now = time.time()
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
                (time.time(), grant_id),
            )
            if cur.rowcount == 0:
                raise NotFound(f"no active grant {grant_id!r}", grant_id=grant_id)
        self._grants_cache = None

    def active_grants(self, now: float | None = None) -> list[Grant]:
        """Unexpired, unrevoked grants; cached for a second (grants are minutes long)."""
        now = time.time() if now is None else now
        cached = self._grants_cache
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
            new_id(), caller, glob.strip(), reason.strip()[:2000], time.time(), None
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
        with self._lock:
            row = self._conn.execute(
                "SELECT caller, glob, decision FROM access_requests WHERE request_id = ?",
                (request_id,),
            ).fetchone()
            if row is None or row[2] is not None:
                raise NotFound(f"no pending access request {request_id!r}", request_id=request_id)
            grant = self.add_grant(row[0], row[1], minutes, request_id=request_id)
            with self.transaction() as conn:
                conn.execute(
                    "UPDATE access_requests SET decided_at = ?, decision = 'approved' "
                    "WHERE request_id = ?",
                    (time.time(), request_id),
                )
        return grant


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
