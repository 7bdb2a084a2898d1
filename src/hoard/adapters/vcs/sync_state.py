"""What sync remembers between runs, in ``sync.json`` in the state folder (outside the vault,
never in git): the last successful pull and push, the last error, since when pushes fail,
and whether the remote rewrote its history. Written atomically (stage, fsync, rename), so a
crash leaves the old record or the new one. The last commit both sides had is a git ref of
the vault (``refs/hoard/sync/base``), where ``git gc`` keeps it alive.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class SyncState:
    last_pull_at: float | None = None
    last_pull_commit: str | None = None
    last_push_at: float | None = None
    last_push_commit: str | None = None
    last_error: str | None = None
    last_error_at: float | None = None
    push_failing_since: float | None = None
    rewritten: str | None = None
    """Set when the remote's branch no longer descends from the last sync: the remote's
    commit then; sync waits until the owner accepts the new history."""
    renamed: list[list[str]] | None = None
    """Notes both sides renamed differently, ``[remote's name, hoard's name]`` each, until
    the owner keeps one (both files stay meanwhile)."""


class SyncStateFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def load(self) -> SyncState:
        try:
            data: Any = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return SyncState()
        if not isinstance(data, dict):
            return SyncState()
        names = {f.name for f in dataclasses.fields(SyncState)}
        return SyncState(**{k: v for k, v in data.items() if k in names})

    def update(self, **changes: Any) -> SyncState:
        """Change some fields and save the record durably; returns the new record."""
        with self._lock:
            state = dataclasses.replace(self.load(), **changes)
            stage = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            with open(stage, "w", encoding="utf-8") as f:
                json.dump(dataclasses.asdict(state), f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.replace(stage, self.path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(stage)
            return state
