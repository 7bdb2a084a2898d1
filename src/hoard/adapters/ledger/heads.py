"""Each note's head: the revision the last change hoard recorded left at the path, written
in the same transaction as that change's outcome.

On a shared folder a replica's view may lag behind what another replica wrote (an NFS
attribute or lookup cache): it reads an older revision, and a revision check against that
view would pass and overwrite the newer one. The head catches it: a note that holds a revision
the path held *before* its head (one a recorded change made or replaced) is a stale view, and
the write is refused. A revision never seen there is a save from outside, which writes handle
as ever.
"""

from __future__ import annotations

from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.sql import SqlConn

HEAD_DECISIONS = ("written", "restored", "archived", "superseded", "retracted", "edited_outside")
"""Event decisions that say what is at a path now (their ``after``; ``None``: nothing)."""

_IN_HEAD = ", ".join(f"'{d}'" for d in HEAD_DECISIONS)


HEAD_FROM_EVENT = (
    "INSERT INTO note_heads(path, revision, event_id) SELECT ?, ?, event_id FROM e "
    "ON CONFLICT(path) DO UPDATE SET revision = excluded.revision, event_id = excluded.event_id"
)
"""PostgreSQL's head update as part of the statement that inserts its event (a ``WITH``
whose ``e`` returns the event's id)."""


def set_head(conn: SqlConn, path: str, revision: str | None, event_id: int) -> None:
    """In the outcome's transaction: ``path`` now holds ``revision`` (event ``event_id``)."""
    conn.execute(
        "INSERT INTO note_heads(path, revision, event_id) VALUES(?,?,?) ON CONFLICT(path) "
        "DO UPDATE SET revision = excluded.revision, event_id = excluded.event_id",
        (path, revision, event_id),
    )


def holds(conn: SqlConn, path: str, revision: str | None) -> bool:
    """In the open transaction ``conn``: whether ``path``'s head is still ``revision``
    (``True`` when no change there has been recorded since heads were kept)."""
    row = conn.execute("SELECT revision FROM note_heads WHERE path = ?", (path,)).fetchone()
    return row is None or row[0] == revision


def stale_head(ledger: Ledger, path: str, revision: str | None) -> tuple[bool, str | None]:
    """:func:`stale_view` on a shared store; one process sees its own writes: never stale."""
    if ledger.replica is None:
        return False, None
    return stale_view(ledger, path, revision)


def stale_view(ledger: Ledger, path: str, revision: str | None) -> tuple[bool, str | None]:
    """Whether ``revision`` (what this replica reads at ``path``) is a stale view: not the
    head, but one the path held earlier (a change recorded there replaced it or made it).
    With it, the head's revision."""
    if revision is None:  # creating: the folder's exclusive create refuses a file it has
        return False, None
    with ledger.read() as conn:
        row = conn.execute("SELECT revision FROM note_heads WHERE path = ?", (path,)).fetchone()
        if row is None or row[0] == revision:
            return False, None
        earlier = conn.execute(
            f"SELECT 1 FROM events WHERE path = ? AND decision IN ({_IN_HEAD}) "
            "AND (after = ? OR before = ?) LIMIT 1",
            (path, revision, revision),
        ).fetchone()
    return earlier is not None, row[0]
