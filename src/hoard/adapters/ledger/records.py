"""What the ledger remembers about changes: preserved revisions, mutation events, proposals
and the two-file transaction journal. Every row here is inserted, never updated or deleted.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from hoard.adapters.ledger.events import add_event
from hoard.adapters.ledger.journal import Journal
from hoard.adapters.ledger.store import new_id
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


def _insert_revision(conn: SqlConn, rev: Revision, raw: bytes) -> None:
    conn.execute(
        "INSERT INTO revisions(revision_id, path, sha256, size, content, reason, caller, at) "
        "VALUES(?,?,?,?,?,?,?,?)",
        (rev.revision_id, rev.path, rev.sha256, rev.size, raw, rev.reason, rev.caller, rev.at),
    )


class Records(Journal):
    """The ledger's revisions, events and proposals (and, from :class:`Journal`, its
    transaction journal)."""

    # -- revisions -----------------------------------------------------------------------------

    def preserve(self, path: str, raw: bytes, reason: str, caller: str) -> Revision:
        """Keep exact bytes, durably (the transaction commits with synchronous=FULL) before
        the caller goes on to change the file."""
        rev = Revision(
            revision_id=new_id(12),
            path=path,
            sha256=revision_of(raw),
            size=len(raw),
            reason=reason,
            caller=caller,
            at=time.time(),
        )
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
            event_id = add_event(
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
        return event_id()  # read after the commit: one round trip on PostgreSQL

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
            else Revision(
                revision_id=new_id(12),
                path=path,
                sha256=revision_of(before),
                size=len(before),
                reason=reason,
                caller=caller,
                at=now,
            )
        )
        with self.ledger.transaction() as conn:
            if rev is not None and before is not None:
                _insert_revision(conn, rev, before)
            intent_id = add_event(
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
        return intent_id(), rev

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
            proposal_id=new_id(8),
            caller=caller,
            tool=tool,
            path=path,
            content=content,
            expected_revision=expected_revision,
            base_revision=base_revision,
            args=args,
            diff=diff,
            created_at=now,
            expires_at=now + ttl_seconds,
            decision=None,
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
            proposal_id=row[0],
            caller=row[1],
            tool=row[2],
            path=row[3],
            content=bytes(row[4]),
            expected_revision=row[5],
            base_revision=row[6],
            args=json.loads(row[7]),
            diff=row[8],
            created_at=row[9],
            expires_at=row[10],
            decision=row[11],
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
