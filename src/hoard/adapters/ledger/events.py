"""The one way an event enters the ledger: :func:`insert_event`, inside the caller's
transaction. An event that changed a note's bytes is also handed to the ledger's outbox (the
change feed replicas sharing a PostgreSQL store follow), in that same transaction, so a
change is announced exactly when its outcome commits, and never without it."""

from __future__ import annotations

import time

from hoard.adapters.ledger.heads import HEAD_DECISIONS, set_head
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.sql import SqlConn

CHANGE_DECISIONS = ("written", "restored", "archived", "superseded", "retracted")
"""Event decisions that changed a note's bytes on disk (refusals, intents and proposals
did not)."""

EDITED_OUTSIDE = "edited_outside"
"""The decision of an event that records a save from outside hoard."""

FED_DECISIONS = frozenset((*CHANGE_DECISIONS, EDITED_OUTSIDE, "unknown"))
"""Decisions the outbox announces: every change to a note's bytes, whoever made it (an
``unknown`` outcome found the file at neither revision of an interrupted change)."""


def insert_event(
    ledger: Ledger,
    conn: SqlConn,
    *,
    tool: str,
    caller: str,
    path: str | None,
    before: str | None,
    after: str | None,
    decision: str,
    reason: str | None = None,
    intent_id: int | None = None,
    at: float | None = None,
) -> int:
    """Insert one event in the open transaction ``conn`` of ``ledger``; its id. An outcome
    that changes what is at a path moves that path's head in the same transaction, and on a
    shared store announces the change to the other replicas."""
    cur = conn.execute(
        "INSERT INTO events(at, tool, caller, path, before, after, decision, reason, "
        "intent_id, replica) VALUES(?,?,?,?,?,?,?,?,?,?) RETURNING event_id",
        (
            time.time() if at is None else at,
            tool,
            caller,
            path,
            before,
            after,
            decision,
            reason,
            intent_id,
            ledger.replica,
        ),
    )
    event_id = int(cur.fetchone()[0])
    if path is not None and decision in HEAD_DECISIONS:
        set_head(conn, path, after, event_id)
    if ledger.outbox is not None and path is not None and decision in FED_DECISIONS:
        ledger.outbox.changed(conn, event_id, path)
    return event_id
