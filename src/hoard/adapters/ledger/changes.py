"""What the ledger knows of recent changes to notes, for ``vault_recent`` and the session
briefing: the events that changed a note (newest first, within a window of event ids and
times), the newest revision hoard itself wrote at each of some paths (an index row with any
other revision was changed outside hoard), and the preserved bytes of a revision."""

from __future__ import annotations

from collections.abc import Iterable

from hoard.adapters.ledger.events import CHANGE_DECISIONS
from hoard.adapters.ledger.records import EVENT_COLUMNS, Event
from hoard.adapters.ledger.store import Ledger

_IN_DECISIONS = ", ".join(f"'{d}'" for d in CHANGE_DECISIONS)


def note_changes(
    ledger: Ledger,
    *,
    after_event: int,
    before_at: float | None,
    path_prefix: str | None,
    limit: int,
) -> list[Event]:
    """Events that changed a note, newest first: newer than event ``after_event``, older
    than the time ``before_at`` (when given), below ``path_prefix`` (when given)."""
    sql = (
        f"SELECT {EVENT_COLUMNS} FROM events WHERE event_id > ? AND path IS NOT NULL "
        f"AND decision IN ({_IN_DECISIONS})"
    )
    args: list[object] = [after_event]
    if before_at is not None:
        sql += " AND at < ?"
        args.append(before_at)
    if path_prefix:
        sql += " AND substr(path, 1, ?) = ?"
        args += [len(path_prefix), path_prefix]
    sql += " ORDER BY event_id DESC LIMIT ?"
    args.append(limit)
    with ledger.read() as conn:
        return [Event(*r) for r in conn.execute(sql, args).fetchall()]


def last_event_id(ledger: Ledger) -> int:
    with ledger.read() as conn:
        row = conn.execute("SELECT coalesce(max(event_id), 0) FROM events").fetchone()
    return int(row[0])


def revisions_written(ledger: Ledger, paths: Iterable[str]) -> dict[str, set[str]]:
    """For each path, the revisions hoard's own changes left there (the ``after`` of its
    change events, and the bytes of archives it restored)."""
    wanted = sorted(set(paths))
    out: dict[str, set[str]] = {p: set() for p in wanted}
    if not wanted:
        return out
    with ledger.read() as conn:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT path, after FROM events WHERE path IN ({marks}) "
                f"AND after IS NOT NULL AND decision IN ({_IN_DECISIONS})",
                chunk,
            ).fetchall()
            for path, after in rows:
                out[str(path)].add(str(after))
    return out


def preserved_bytes(ledger: Ledger, path: str, sha256: str) -> bytes | None:
    """The bytes of revision ``sha256`` of ``path`` if the ledger preserved them."""
    with ledger.read() as conn:
        row = conn.execute(
            "SELECT content FROM revisions WHERE path = ? AND sha256 = ? LIMIT 1",
            (path, sha256),
        ).fetchone()
    return None if row is None else bytes(row[0])


def registered_summaries(ledger: Ledger, limit: int = 200) -> list[str]:
    """Paths of the notes registered as summaries, most recently registered first."""
    with ledger.read() as conn:
        rows = conn.execute(
            "SELECT path FROM syntheses GROUP BY path ORDER BY max(seq) DESC LIMIT ?", (limit,)
        ).fetchall()
    return [str(r[0]) for r in rows]
