"""The one way an event enters the ledger: :func:`insert_event`, inside the caller's
transaction. An event that changed a note's bytes is also handed to the ledger's outbox (the
change feed replicas sharing a PostgreSQL store follow), in that same transaction, so a
change is announced exactly when its outcome commits, and never without it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hoard.adapters.ledger.heads import HEAD_DECISIONS, HEAD_FROM_EVENT, set_head
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.sql import SqlConn, SqlCursor

CHANGE_DECISIONS = ("written", "restored", "archived", "superseded", "retracted")
"""Event decisions that changed a note's bytes on disk (refusals, intents and proposals
did not)."""

EDITED_OUTSIDE = "edited_outside"
"""The decision of an event that records a save from outside hoard."""

FED_DECISIONS = frozenset((*CHANGE_DECISIONS, EDITED_OUTSIDE, "unknown"))
"""Decisions the outbox announces: every change to a note's bytes, whoever made it (an
``unknown`` outcome found the file at neither revision of an interrupted change)."""


_COLUMNS = "at, tool, caller, path, before, after, decision, reason, intent_id, replica"
_INSERT = f"INSERT INTO events({_COLUMNS}) VALUES(?,?,?,?,?,?,?,?,?,?) RETURNING event_id"


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
    """Insert one event in the open transaction ``conn`` of ``ledger``; its id (see
    :func:`add_event`, which this reads at once)."""
    return add_event(
        ledger,
        conn,
        tool=tool,
        caller=caller,
        path=path,
        before=before,
        after=after,
        decision=decision,
        reason=reason,
        intent_id=intent_id,
        at=at,
    )()


def add_event(
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
) -> Callable[[], int]:
    """Insert one event in the open transaction ``conn`` of ``ledger``; what reads its id.
    An outcome that changes what is at a path moves that path's head in the same
    transaction, and on a shared store announces the change to the other replicas.

    On PostgreSQL the event, the head and the announcement are one statement, and its id is
    read when the returned function is first called: called after the transaction, the
    whole transaction is one round trip to the server."""
    row = (
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
    )
    heads = path is not None and decision in HEAD_DECISIONS
    fed = ledger.outbox is not None and path is not None and decision in FED_DECISIONS
    if ledger.db.engine == "postgres":
        return _read_once(conn.execute(*_one_statement(ledger, row, heads, fed)))
    event_id = int(conn.execute(_INSERT, row).fetchone()[0])
    if heads and path is not None:
        set_head(conn, path, after, event_id)
    return lambda: event_id


def _one_statement(
    ledger: Ledger, row: tuple[Any, ...], heads: bool, fed: bool
) -> tuple[str, tuple[Any, ...]]:
    """PostgreSQL's statement (and its parameters) that inserts the event ``row``, moves
    its path's head (``heads``) and hands it to the outbox (``fed``), selecting its id."""
    path, after = row[3], row[5]
    ctes, params = [f"e AS ({_INSERT})"], list(row)
    if heads:
        ctes.append(f"h AS ({HEAD_FROM_EVENT})")
        params += [path, after]
    select, tail = "SELECT e.event_id FROM e", ()
    if fed and ledger.outbox is not None:
        cte, cte_params, column, tail = ledger.outbox.announce("e", path)
        ctes.append(cte)
        params += cte_params
        select = f"SELECT e.event_id, {column} FROM e"
    return f"WITH {', '.join(ctes)} {select}", (*params, *tail)


def _read_once(cur: SqlCursor) -> Callable[[], int]:
    seen: list[int] = []

    def event_id() -> int:
        if not seen:
            seen.append(int(cur.fetchone()[0]))
        return seen[0]

    return event_id
