"""What the ledger remembers about changes: preserved revisions, mutation events, proposals
and the two-file transaction journal. Every row here is inserted, never updated or deleted.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from hoard.adapters.ledger.events import insert_event
from hoard.adapters.ledger.store import Ledger, new_id
from hoard.adapters.store.sql import SqlConn
from hoard.core.errors import IoError, NotFound
from hoard.core.note import revision_of


@dataclass(frozen=True, slots=True)
class Revision:
    revision_id: str
    path: str
    sha256: str
    size: int
    reason: str
    caller: str
    at: float


REVISION_COLUMNS = "revision_id, path, sha256, size, reason, caller, at"
"""The columns of :class:`Revision`, in its order."""

EVENT_COLUMNS = "event_id, at, tool, caller, path, before, after, decision, reason"
"""The columns of :class:`Event`, in its order."""


@dataclass(frozen=True, slots=True)
class Event:
    """One row of the ledger's events (an intent, an outcome, or a refusal)."""

    event_id: int
    at: float
    tool: str
    caller: str
    path: str | None
    before: str | None
    after: str | None
    decision: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class Proposal:
    proposal_id: str
    caller: str
    tool: str
    path: str
    content: bytes
    expected_revision: str | None
    base_revision: str | None
    args: dict[str, Any]
    diff: str
    created_at: float
    expires_at: float
    decision: str | None


@dataclass(frozen=True, slots=True)
class Transaction:
    txn_id: str
    kind: str
    intent: dict[str, Any]
    caller: str
    at: float
    state: str
    detail: str | None


def _insert_revision(conn: SqlConn, rev: Revision, raw: bytes) -> None:
    conn.execute(
        "INSERT INTO revisions(revision_id, path, sha256, size, content, reason, caller, at) "
        "VALUES(?,?,?,?,?,?,?,?)",
        (rev.revision_id, rev.path, rev.sha256, rev.size, raw, rev.reason, rev.caller, rev.at),
    )


def intent_checksum(intent: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(intent, sort_keys=True).encode()).hexdigest()


class Records:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    # -- revisions -----------------------------------------------------------------------------

    def preserve(self, path: str, raw: bytes, reason: str, caller: str) -> Revision:
        """Keep exact bytes, durably (the transaction commits with synchronous=FULL) before
        the caller goes on to change the file."""
        rev = Revision(new_id(12), path, revision_of(raw), len(raw), reason, caller, time.time())
        with self.ledger.transaction() as conn:
            _insert_revision(conn, rev, raw)
        return rev

    def revision(self, revision_id: str) -> tuple[Revision, bytes]:
        with self.ledger.read() as conn:
            row = conn.execute(
                f"SELECT {REVISION_COLUMNS}, content FROM revisions WHERE revision_id = ?",
                (revision_id,),
            ).fetchone()
        if row is None:
            raise NotFound(f"no preserved revision {revision_id!r}", revision_id=revision_id)
        content = bytes(row[7])
        rev = Revision(*row[:7])
        if revision_of(content) != rev.sha256:
            raise IoError(
                f"preserved revision {revision_id!r} does not match its SHA-256: "
                "the ledger is damaged",
                revision_id=revision_id,
            )
        return rev, content

    def revisions_of(self, path: str) -> list[Revision]:
        with self.ledger.read() as conn:
            rows = conn.execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions WHERE path = ? ORDER BY at, rowid",
                (path,),
            ).fetchall()
        return [Revision(*r) for r in rows]

    # -- events --------------------------------------------------------------------------------

    def event(
        self,
        tool: str,
        caller: str,
        path: str | None,
        before: str | None,
        after: str | None,
        decision: str,
        reason: str | None = None,
        intent_id: int | None = None,
    ) -> int:
        """Record an event; its id. The outcome of a change (it names its intent) commits
        without an fsync: the intent row is durable, and an intent whose outcome a power loss
        took is reconciled from the file at the next start. Every other event is durable."""
        with self.ledger.transaction(durable=intent_id is None) as conn:
            return insert_event(
                self.ledger,
                conn,
                tool=tool,
                caller=caller,
                path=path,
                before=before,
                after=after,
                decision=decision,
                reason=reason,
                intent_id=intent_id,
            )

    def begin_change(
        self,
        tool: str,
        caller: str,
        path: str,
        before: bytes | None,
        after: str | None,
        reason: str,
    ) -> tuple[int, Revision | None]:
        """In one durable transaction: preserve the prior bytes (if any) and record the
        intent to change the file. The outcome event names the intent; an intent without
        one (a crash) is reconciled from the file at the next start."""
        now = time.time()
        rev = (
            None
            if before is None
            else Revision(new_id(12), path, revision_of(before), len(before), reason, caller, now)
        )
        with self.ledger.transaction() as conn:
            if rev is not None and before is not None:
                _insert_revision(conn, rev, before)
            intent_id = insert_event(
                self.ledger,
                conn,
                tool=tool,
                caller=caller,
                path=path,
                before=None if rev is None else rev.sha256,
                after=after,
                decision="intent",
                reason=reason,
                at=now,
            )
        return intent_id, rev

    def open_intents(self) -> list[Event]:
        """Intents with no outcome that are this replica's to settle (its own, and those of
        hoard before replicas; every one for one process): changes a crash interrupted."""
        mine, args = self._mine("e")
        with self.ledger.read() as conn:
            rows = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events e WHERE e.decision = 'intent' AND NOT EXISTS "
                f"(SELECT 1 FROM events o WHERE o.intent_id = e.event_id){mine} "
                "ORDER BY e.event_id",
                args,
            ).fetchall()
        return [Event(*r) for r in rows]

    def _mine(self, table: str) -> tuple[str, tuple[str, ...]]:
        """The condition (and its argument) that keeps the rows of ``table`` this replica
        settles: its own and those without a replica; none for one process."""
        if self.ledger.replica is None:
            return "", ()
        return (
            f" AND ({table}.replica IS NULL OR {table}.replica = ?)",
            (self.ledger.replica,),
        )

    def events_of(self, path: str, limit: int = 500, offset: int = 0) -> list[Event]:
        """Up to ``limit`` events of ``path``, oldest first, after skipping the ``offset``
        newest."""
        with self.ledger.read() as conn:
            rows = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events "
                "WHERE path = ? AND decision != 'intent' ORDER BY event_id DESC LIMIT ? OFFSET ?",
                (path, limit, offset),
            ).fetchall()
        return [Event(*r) for r in reversed(rows)]

    # -- proposals -------------------------------------------------------------------------------

    def propose(
        self,
        caller: str,
        tool: str,
        path: str,
        content: bytes,
        expected_revision: str | None,
        base_revision: str | None,
        args: dict[str, Any],
        diff: str,
        ttl_seconds: int,
    ) -> Proposal:
        now = self.ledger.clock()
        p = Proposal(
            new_id(8),
            caller,
            tool,
            path,
            content,
            expected_revision,
            base_revision,
            args,
            diff,
            now,
            now + ttl_seconds,
            None,
        )
        with self.ledger.transaction() as conn:
            conn.execute(
                "INSERT INTO proposals(proposal_id, caller, tool, path, content, "
                "expected_revision, base_revision, args, diff, created_at, expires_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                (
                    p.proposal_id,
                    caller,
                    tool,
                    path,
                    content,
                    expected_revision,
                    base_revision,
                    json.dumps(args),
                    diff,
                    now,
                    p.expires_at,
                ),
            )
        return p

    @staticmethod
    def _proposal(row: tuple[Any, ...]) -> Proposal:
        return Proposal(
            row[0],
            row[1],
            row[2],
            row[3],
            bytes(row[4]),
            row[5],
            row[6],
            json.loads(row[7]),
            row[8],
            row[9],
            row[10],
            row[11],
        )

    def proposal(self, proposal_id: str) -> Proposal:
        with self.ledger.read() as conn:
            row = conn.execute(
                "SELECT p.proposal_id, p.caller, p.tool, p.path, p.content, p.expected_revision,"
                " p.base_revision, p.args, p.diff, p.created_at, p.expires_at, d.decision "
                "FROM proposals p LEFT JOIN proposal_decisions d USING(proposal_id) "
                "WHERE p.proposal_id = ?",
                (proposal_id,),
            ).fetchone()
        if row is None:
            raise NotFound(f"no proposal {proposal_id!r}")
        return self._proposal(row)

    def pending_proposals(self, now: float | None = None) -> list[Proposal]:
        now = self.ledger.clock() if now is None else now
        with self.ledger.read() as conn:
            rows = conn.execute(
                "SELECT p.proposal_id, p.caller, p.tool, p.path, p.content, p.expected_revision,"
                " p.base_revision, p.args, p.diff, p.created_at, p.expires_at, NULL "
                "FROM proposals p LEFT JOIN proposal_decisions d USING(proposal_id) "
                "WHERE d.decision IS NULL AND p.expires_at > ? ORDER BY p.created_at",
                (now,),
            ).fetchall()
        return [self._proposal(r) for r in rows]

    def decide(self, proposal_id: str, decision: str, caller: str) -> bool:
        """Record the one decision a proposal gets; ``False`` if it already had one."""
        with self.ledger.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO proposal_decisions(proposal_id, decision, caller, at) "
                "VALUES(?,?,?,?) ON CONFLICT DO NOTHING",
                (proposal_id, decision, caller, time.time()),
            )
            return cur.rowcount == 1

    # -- the transaction journal -------------------------------------------------------------------

    def begin_transaction(
        self, kind: str, intent: dict[str, Any], blobs: dict[str, bytes], caller: str
    ) -> str:
        """Make the intent (and the new bytes) durable before any file moves."""
        txn_id = new_id(10)
        with self.ledger.transaction() as conn:
            conn.execute(
                "INSERT INTO transactions(txn_id, kind, intent, checksum, caller, at, replica) "
                "VALUES(?,?,?,?,?,?,?)",
                (
                    txn_id,
                    kind,
                    json.dumps(intent, sort_keys=True),
                    intent_checksum(intent),
                    caller,
                    time.time(),
                    self.ledger.replica,
                ),
            )
            conn.executemany(
                "INSERT INTO transaction_blobs(txn_id, path, content) VALUES(?,?,?)",
                [(txn_id, p, b) for p, b in blobs.items()],
            )
        return txn_id

    def finish_transaction(self, txn_id: str, state: str, detail: str | None = None) -> None:
        with self.ledger.transaction() as conn:
            conn.execute(
                "INSERT INTO transaction_outcomes(txn_id, state, detail, at) VALUES(?,?,?,?)",
                (txn_id, state, detail, time.time()),
            )

    def transaction(self, txn_id: str) -> tuple[Transaction, dict[str, bytes]]:
        with self.ledger.read() as conn:
            row = conn.execute(
                "SELECT t.txn_id, t.kind, t.intent, t.checksum, t.caller, t.at, "
                "(SELECT state FROM transaction_outcomes o WHERE o.txn_id = t.txn_id "
                " ORDER BY outcome_id DESC LIMIT 1), "
                "(SELECT detail FROM transaction_outcomes o WHERE o.txn_id = t.txn_id "
                " ORDER BY outcome_id DESC LIMIT 1) "
                "FROM transactions t WHERE t.txn_id = ?",
                (txn_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"no transaction {txn_id!r}", transaction_id=txn_id)
            blobs = {
                p: bytes(c)
                for p, c in conn.execute(
                    "SELECT path, content FROM transaction_blobs WHERE txn_id = ?", (txn_id,)
                )
            }
        intent = json.loads(row[2])
        if intent_checksum(intent) != row[3]:
            raise IoError(
                f"transaction {txn_id!r}: intent checksum mismatch; not replayed",
                transaction_id=txn_id,
            )
        return Transaction(
            row[0], row[1], intent, row[4], row[5], row[6] or "intent", row[7]
        ), blobs

    def unfinished_transactions(self, include_stuck: bool = False, mine: bool = False) -> list[str]:
        """Transactions to retry: no outcome yet, or ``failed``. A ``stuck`` one waits for a
        person (``hoard recover TXN`` after fixing the file). ``mine``: only those this
        replica recovers (see :meth:`open_intents`)."""
        only, args = self._mine("t") if mine else ("", ())
        with self.ledger.read() as conn:
            rows = conn.execute(
                "SELECT t.txn_id FROM transactions t WHERE COALESCE((SELECT state FROM "
                "transaction_outcomes o WHERE o.txn_id = t.txn_id ORDER BY outcome_id DESC "
                f"LIMIT 1), 'intent') NOT IN ('done', 'rolled_back', ?){only} ORDER BY t.at",
                ("-" if include_stuck else "stuck", *args),
            ).fetchall()
        return [r[0] for r in rows]
