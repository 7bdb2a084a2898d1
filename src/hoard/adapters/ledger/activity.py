"""What the owner's desk reads from the ledger across all notes: recent events (filtered),
archived notes, proposals that expired unanswered, a cheap change stamp for live pages, and
denying an access request."""

from __future__ import annotations

import time
from dataclasses import dataclass

from hoard.adapters.ledger.records import EVENT_COLUMNS, Event
from hoard.adapters.ledger.store import Ledger
from hoard.core.errors import NotFound


@dataclass(frozen=True, slots=True)
class ArchivedRow:
    revision_id: str
    path: str
    reason: str
    caller: str
    at: float


@dataclass(frozen=True, slots=True)
class ExpiredProposal:
    proposal_id: str
    caller: str
    tool: str
    path: str
    diff: str
    created_at: float
    expires_at: float


def recently_expired(
    ledger: Ledger, within_seconds: float, limit: int = 200
) -> list[ExpiredProposal]:
    """Proposals nobody confirmed or rejected that expired in the last ``within_seconds`` by
    the ledger's clock, the most recently expired first."""
    now = ledger.clock()
    sql = (
        "SELECT p.proposal_id, p.caller, p.tool, p.path, p.diff, p.created_at, p.expires_at "
        "FROM proposals p LEFT JOIN proposal_decisions d USING(proposal_id) "
        "WHERE d.decision IS NULL AND p.expires_at <= ? AND p.expires_at > ? "
        "ORDER BY p.expires_at DESC LIMIT ?"
    )
    with ledger.read() as conn:
        rows = conn.execute(sql, (now, now - within_seconds, limit)).fetchall()
    return [ExpiredProposal(*r) for r in rows]


def recent_events(
    ledger: Ledger,
    *,
    caller: str | None = None,
    tool: str | None = None,
    path_prefix: str | None = None,
    decision: str | None = None,
    limit: int = 200,
) -> list[Event]:
    """The newest events first; each filter is exact except the path prefix."""
    where: list[str] = []
    args: list[object] = []
    for column, value in (("caller", caller), ("tool", tool), ("decision", decision)):
        if value:
            where.append(f"{column} = ?")
            args.append(value)
    if path_prefix:
        where.append("substr(path, 1, ?) = ?")
        args += [len(path_prefix), path_prefix]
    sql = f"SELECT {EVENT_COLUMNS} FROM events"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY event_id DESC LIMIT ?"
    args.append(max(1, min(limit, 2000)))
    with ledger.read() as conn:
        return [Event(*r) for r in conn.execute(sql, args).fetchall()]


def archived_revisions(ledger: Ledger, limit: int = 500) -> list[ArchivedRow]:
    """Archive outcomes, newest first, one per path (the caller checks which paths are
    still gone): the preserved revision id is the event's ``reason``."""
    sql = (
        "SELECT e.reason, e.path, e.decision, e.caller, e.at FROM events e "
        "WHERE e.tool IN ('vault_archive', 'vault_confirm') AND e.after IS NULL "
        "AND e.decision IN ('archived', 'superseded', 'retracted') AND e.reason IS NOT NULL "
        "ORDER BY e.event_id DESC LIMIT ?"
    )
    seen: set[str] = set()
    out: list[ArchivedRow] = []
    with ledger.read() as conn:
        for row in conn.execute(sql, (limit,)).fetchall():
            if row[1] not in seen:
                seen.add(row[1])
                out.append(ArchivedRow(*row))
    return out


def change_stamp(ledger: Ledger) -> str:
    """A short string that changes whenever an event, proposal, decision (of a proposal or
    of an outside save over a write), access request or grant is recorded (a few index
    lookups)."""
    sql = (
        "SELECT (SELECT coalesce(max(event_id), 0) FROM events), "
        "(SELECT count(*) FROM proposals), (SELECT count(*) FROM proposal_decisions), "
        "(SELECT count(*) FROM access_requests), "
        "(SELECT count(*) FROM access_requests WHERE decision IS NOT NULL), "
        "(SELECT count(*) FROM grants), (SELECT count(*) FROM grants WHERE revoked_at IS NOT NULL),"
        " (SELECT count(*) FROM clobber_decisions)"
    )
    with ledger.read() as conn:
        row = conn.execute(sql).fetchone()
    return "-".join(str(v) for v in row)


def deny_request(ledger: Ledger, request_id: str) -> None:
    with ledger.transaction() as conn:
        cur = conn.execute(
            "UPDATE access_requests SET decided_at = ?, decision = 'denied' "
            "WHERE request_id = ? AND decision IS NULL",
            (time.time(), request_id),
        )
        if cur.rowcount == 0:
            raise NotFound(f"no pending access request {request_id!r}", request_id=request_id)
