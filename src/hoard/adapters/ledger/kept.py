"""The bytes of revisions, kept by content, and saves from outside hoard.

Every revision hoard writes keeps its bytes in ``kept_bytes``, keyed by their SHA-256 (the
revision), one row per content however often it is written: so a later save from an editor's
stale buffer that replaces it never loses it. A save from outside hoard that hoard notices is
an ``edited_outside`` event naming the revision it replaced (``before``) and the new one
(``after``), both kept; when it replaced an agent's recent write without that write's lines,
a ``clobbers`` row puts it in the owner's inbox until the owner restores or dismisses it.
Append-only, like the rest of the ledger.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hoard.adapters.ledger import heads
from hoard.adapters.ledger.events import CHANGE_DECISIONS, EDITED_OUTSIDE, add_event, insert_event
from hoard.adapters.ledger.records import EVENT_COLUMNS, Event
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.sql import SqlConn
from hoard.core.note import revision_of

OUTSIDE = "outside"
"""The caller and tool name of a change made outside hoard."""

BELIEF_DECISIONS = ("intent", "failed", "not_written", EDITED_OUTSIDE, *CHANGE_DECISIONS)
"""Events that say what hoard last knew to be at a path."""

_IN_BELIEF = ", ".join(f"'{d}'" for d in BELIEF_DECISIONS)


@dataclass(frozen=True, slots=True)
class KeptRevision:
    """A revision of a note whose bytes the ledger keeps: who left it there and when."""

    sha256: str
    size: int
    decision: str
    caller: str
    at: float


@dataclass(frozen=True, slots=True)
class Clobber:
    """A save from outside that replaced an agent's recent write without its lines."""

    event_id: int
    path: str
    written: str
    written_by: str
    written_at: float
    outside: str
    at: float


def keep(conn: SqlConn, raw: bytes, sha256: str) -> None:
    """Keep ``raw`` under its revision (a no-op when the ledger has it already)."""
    conn.execute(
        "INSERT INTO kept_bytes(sha256, content) VALUES(?,?) ON CONFLICT DO NOTHING", (sha256, raw)
    )


def record_written(
    ledger: Ledger,
    tool: str,
    caller: str,
    path: str,
    before: str | None,
    raw: bytes,
    intent_id: int | None,
    reason: str | None = None,
) -> int:
    """In one transaction: keep the bytes a change wrote and record its ``written``
    outcome. The outcome of an intent is not fsynced, like every outcome (the intent is
    durable, and after a power loss the outcome is reconciled from the file, whose bytes
    are then kept again); one without an intent (a journaled transaction's) is."""
    after = revision_of(raw)
    with ledger.transaction(durable=intent_id is None) as conn:
        keep(conn, raw, after)
        event_id = add_event(
            ledger,
            conn,
            tool=tool,
            caller=caller,
            path=path,
            before=before,
            after=after,
            decision="written",
            reason=reason,
            intent_id=intent_id,
        )
    return event_id()  # read after the commit: one round trip on PostgreSQL


def keep_bytes(ledger: Ledger, raw: bytes) -> str:
    """Keep ``raw`` (durably); its revision."""
    sha = revision_of(raw)
    with ledger.transaction() as conn:
        keep(conn, raw, sha)
    return sha


def kept_bytes(ledger: Ledger, sha256: str) -> bytes | None:
    with ledger.read() as conn:
        row = conn.execute("SELECT content FROM kept_bytes WHERE sha256 = ?", (sha256,)).fetchone()
    return None if row is None else bytes(row[0])


def paths_of(ledger: Ledger, sha256: str) -> list[str]:
    """The paths where events say revision ``sha256`` was (written there, or replaced)."""
    with ledger.read() as conn:
        rows = conn.execute(
            "SELECT DISTINCT path FROM events WHERE path IS NOT NULL AND (after = ? OR before = ?)",
            (sha256, sha256),
        ).fetchall()
    return sorted(str(r[0]) for r in rows)


def kept_of(ledger: Ledger, path: str) -> list[KeptRevision]:
    """The revisions of ``path`` whose bytes are kept, each once (its first change event),
    oldest first."""
    with ledger.read() as conn:
        rows = conn.execute(
            "SELECT e.after, length(k.content), e.decision, e.caller, e.at FROM events e "
            "JOIN kept_bytes k ON k.sha256 = e.after WHERE e.path = ? "
            f"AND e.decision IN ({_IN_BELIEF}) AND e.decision NOT IN ('intent', 'failed') "
            "ORDER BY e.event_id",
            (path,),
        ).fetchall()
    seen: dict[str, KeptRevision] = {}
    for sha, size, decision, caller, at in rows:
        seen.setdefault(
            str(sha),
            KeptRevision(sha256=str(sha), size=int(size), decision=decision, caller=caller, at=at),
        )
    return list(seen.values())


def last_known(ledger: Ledger, paths: list[str]) -> dict[str, Event]:
    """For each of ``paths`` the ledger has a change of: the newest event that says what
    hoard last knew to be there (a change's intent counts: its write may be under way)."""
    out: dict[str, Event] = {}
    with ledger.read() as conn:
        for path in paths:
            row = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE path = ? "
                f"AND decision IN ({_IN_BELIEF}) ORDER BY event_id DESC LIMIT 1",
                (path,),
            ).fetchone()
            if row is not None:
                out[path] = Event(*row)
    return out


def last_written(ledger: Ledger, path: str, sha256: str) -> Event | None:
    """The newest ``written`` event that left revision ``sha256`` at ``path``."""
    with ledger.read() as conn:
        row = conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE path = ? AND after = ? "
            "AND decision = 'written' ORDER BY event_id DESC LIMIT 1",
            (path, sha256),
        ).fetchone()
    return None if row is None else Event(*row)


def record_outside(
    ledger: Ledger,
    path: str,
    before: str | None,
    raw: bytes | None,
    clobbered: Event | None,
) -> int | None:
    """Record a save (``raw``; ``None``: the file went) from outside hoard that replaced
    revision ``before``, keep its bytes, and, when it replaced the agent's write
    ``clobbered``, put it in the owner's inbox. Durable; the event's id.

    On a shared store, only while the note's head is still ``before``, checked in the
    transaction that moves it (the store's write transactions are serialised): of replicas
    noticing the same save at once, the first records it and the others record nothing
    (``None``); a replica whose belief was overtaken learns the newer head from the change
    feed and looks again. One process records what it noticed, as ever."""
    after = None if raw is None else revision_of(raw)
    now = time.time()
    with ledger.transaction() as conn:
        if ledger.replica is not None and not heads.holds(conn, path, before):
            return None
        if raw is not None and after is not None:
            keep(conn, raw, after)
        event_id = insert_event(
            ledger,
            conn,
            tool=OUTSIDE,
            caller=OUTSIDE,
            path=path,
            before=before,
            after=after,
            decision=EDITED_OUTSIDE,
            reason=_reason(clobbered),
            at=now,
        )
        if clobbered is not None and clobbered.after is not None and after is not None:
            conn.execute(
                "INSERT INTO clobbers(event_id, path, written, written_by, written_at, outside, "
                "at) VALUES(?,?,?,?,?,?,?)",
                (event_id, path, clobbered.after, clobbered.caller, clobbered.at, after, now),
            )
    return event_id


def _reason(clobbered: Event | None) -> str | None:
    if clobbered is None:
        return None
    return (
        f"replaced {clobbered.caller}'s write ({clobbered.tool}) without the lines it added; "
        "both versions are kept"
    )


def open_clobbers(ledger: Ledger) -> list[Clobber]:
    """Clobbers the owner has not yet restored or dismissed, newest first."""
    with ledger.read() as conn:
        rows = conn.execute(
            "SELECT c.event_id, c.path, c.written, c.written_by, c.written_at, c.outside, c.at "
            "FROM clobbers c LEFT JOIN clobber_decisions d USING(event_id) "
            "WHERE d.decision IS NULL ORDER BY c.event_id DESC"
        ).fetchall()
    return [Clobber(*r) for r in rows]


def clobber(ledger: Ledger, event_id: int) -> tuple[Clobber, str | None] | None:
    """One clobber and its decision (``None``: still open)."""
    with ledger.read() as conn:
        row = conn.execute(
            "SELECT c.event_id, c.path, c.written, c.written_by, c.written_at, c.outside, c.at, "
            "d.decision FROM clobbers c LEFT JOIN clobber_decisions d USING(event_id) "
            "WHERE c.event_id = ?",
            (event_id,),
        ).fetchone()
    return None if row is None else (Clobber(*row[:7]), row[7])


def decide_clobber(ledger: Ledger, event_id: int, decision: str, caller: str) -> bool:
    """Record the one decision a clobber gets; ``False`` if it already had one."""
    with ledger.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO clobber_decisions(event_id, decision, caller, at) "
            "VALUES(?,?,?,?) ON CONFLICT DO NOTHING",
            (event_id, decision, caller, time.time()),
        )
        return cur.rowcount == 1
