"""The owner's side of a save from outside that replaced an agent's write: the inbox item
with both versions, the one-click restore of the agent's version (a write through every
gate, expecting the revision the item shows), and dismissing it."""

from __future__ import annotations

from dataclasses import dataclass

from hoard.adapters.ledger import kept
from hoard.adapters.ledger.kept import Clobber
from hoard.app.writes.write_path import WritePath
from hoard.core import gates
from hoard.core.errors import IoError, NotFound
from hoard.core.models import WriteResult
from hoard.core.policy import Caller

RESTORED = "restored"
DISMISSED = "dismissed"


@dataclass(frozen=True, slots=True)
class ClobberItem:
    """An inbox item: an outside save replaced an agent's write; see both."""

    event_id: int
    path: str
    written_by: str
    written_at: float
    written: str
    written_text: str
    outside: str
    outside_text: str
    at: float
    diff: str
    """From the agent's version to the one saved outside."""
    current: str | None
    """The revision at the path now (the outside one, unless it changed again since)."""


class Clobbers:
    def __init__(self, writes: WritePath) -> None:
        self.writes = writes
        self.ledger = writes.deps.ledger

    def open(self, *, caller: Caller) -> list[ClobberItem]:
        """The items not yet restored or dismissed, newest first, of notes the caller may
        see."""
        access = self.writes.deps.access
        return [
            self._item(c)
            for c in kept.open_clobbers(self.ledger)
            if access.can_see(c.path, caller=caller)
        ]

    def _item(self, c: Clobber) -> ClobberItem:
        written = kept.kept_bytes(self.ledger, c.written) or b""
        outside = kept.kept_bytes(self.ledger, c.outside) or b""
        return ClobberItem(
            event_id=c.event_id,
            path=c.path,
            written_by=c.written_by,
            written_at=c.written_at,
            written=c.written,
            written_text=written.decode("utf-8", errors="replace"),
            outside=c.outside,
            outside_text=outside.decode("utf-8", errors="replace"),
            at=c.at,
            diff=gates.unified_diff(c.path, written, outside),
            current=self.writes.core.current(c.path).revision,
        )

    def _open(self, event_id: int, caller: Caller) -> Clobber:
        found = kept.clobber(self.ledger, event_id)
        if found is None or found[1] is not None:
            raise NotFound(f"no open outside-save item {event_id}", event_id=event_id)
        if not self.writes.deps.access.can_see(found[0].path, caller=caller):
            raise NotFound(f"no open outside-save item {event_id}", event_id=event_id)
        return found[0]

    def restore(self, event_id: int, *, caller: Caller) -> WriteResult:
        """Write the agent's version back through every gate, expecting the revision saved
        outside (a ``conflict`` when the note changed again since the item was made)."""
        c = self._open(event_id, caller)
        raw = kept.kept_bytes(self.ledger, c.written)
        if raw is None:
            raise IoError(f"the bytes of revision {c.written} are not in the ledger", path=c.path)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise IoError(f"revision {c.written} is not UTF-8 text", path=c.path) from exc
        result = self.writes.write(c.path, text, c.outside, caller=caller)
        if result.status == "written":
            kept.decide_clobber(self.ledger, event_id, RESTORED, caller.name)
        return result

    def dismiss(self, event_id: int, *, caller: Caller) -> None:
        """Keep the version saved outside; the item leaves the inbox (both stay in
        vault_history)."""
        self._open(event_id, caller)
        if not kept.decide_clobber(self.ledger, event_id, DISMISSED, caller.name):
            raise NotFound(f"no open outside-save item {event_id}", event_id=event_id)
