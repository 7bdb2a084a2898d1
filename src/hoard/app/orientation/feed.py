"""The change feed behind resource subscriptions: which notes changed since the last poll,
from any source hoard can see (its own writes in the ledger, edits on disk through the
index: another editor, a git pull, another process writing the same vault). A note removed
outside hoard leaves no index row to see, so it is not reported."""

from __future__ import annotations

from hoard.adapters.index.facets import notes_changed_between
from hoard.adapters.ledger.changes import last_event_id, note_changes
from hoard.app.deps import Deps

BATCH = 1000


class ChangeFeed:
    """Each :meth:`poll` answers the paths changed since the previous one (or since the feed
    was made). Not thread-safe: one poller owns it."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.event = last_event_id(deps.ledger)
        newest = self._rows(0, 1)
        self.ns = newest[0][3] if newest else 0

    def _rows(self, after_ns: int, limit: int) -> list[tuple[str, int, str, int]]:
        def read() -> list[tuple[str, int, str, int]]:
            return notes_changed_between(self.deps.index.reader(), after_ns, None, None, limit)

        def none() -> list[tuple[str, int, str, int]]:
            return []

        return self.deps.from_index(read, none)

    def poll(self) -> list[str]:
        self.deps.ensure_fresh()
        events = note_changes(
            self.deps.ledger, after_event=self.event, before_at=None, path_prefix=None, limit=BATCH
        )
        rows = self._rows(self.ns, BATCH)
        if events:
            self.event = max(e.event_id for e in events)
        if rows:
            self.ns = max(m for _p, _z, _r, m in rows)
        return sorted({e.path for e in events if e.path} | {p for p, _z, _r, _m in rows})
