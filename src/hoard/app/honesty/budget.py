"""What one response may spend checking files, and the hash cache that makes re-checks cheap.

One :class:`Budget` per response: every warning of that response draws from it, so ten
search results cannot start ten independent walks. The deadline is cooperative: it is looked
at before each file check, never enforced by interrupting a read.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hoard.adapters.fs.vault import Vault
from hoard.core.attachments import is_attachment_path
from hoard.core.errors import HoardError, NotFound, PathRejected, TooLarge
from hoard.core.note import revision_of

MAX_FILE_CHECKS = 128
MAX_BYTES = 16 * 1024 * 1024
DEADLINE_MS = 250.0
UNBUDGETED_FILE_CAP = 256 * 1024 * 1024
"""Largest file hashed outside a budget (registering, recording a claim): the read cap."""


class Budget:
    """File checks, bytes read and wall time one response may spend."""

    def __init__(
        self,
        max_file_checks: int = MAX_FILE_CHECKS,
        max_bytes: int = MAX_BYTES,
        deadline_ms: float = DEADLINE_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_file_checks = max_file_checks
        self.max_bytes = max_bytes
        self.deadline_ms = deadline_ms
        self._clock = clock
        self._start = clock()
        self.file_checks = 0
        self.bytes_read = 0
        self.cached = 0
        self.exhausted = False
        self.exhausted_by: str | None = None
        """``file_checks``, ``bytes`` or ``time``: what ran out first."""

    @property
    def elapsed_ms(self) -> float:
        return (self._clock() - self._start) * 1000.0

    @property
    def remaining_bytes(self) -> int:
        return max(0, self.max_bytes - self.bytes_read)

    def _exhaust(self, by: str) -> bool:
        if not self.exhausted:
            self.exhausted = True
            self.exhausted_by = by
        return False

    def out_of_time(self) -> bool:
        if self.elapsed_ms >= self.deadline_ms:
            self._exhaust("time")
        return self.exhausted

    def take_check(self) -> bool:
        """Spend one file check; ``False`` (and exhausted) when none may be spent."""
        if self.exhausted:
            return False
        if self.file_checks >= self.max_file_checks:
            return self._exhaust("file_checks")
        if self.out_of_time():
            return False
        self.file_checks += 1
        return True

    def can_read(self, size: int) -> bool:
        """May ``size`` more bytes be read? ``False`` exhausts the budget."""
        if self.bytes_read + size > self.max_bytes:
            return self._exhaust("bytes")
        return True

    def as_dict(self) -> dict[str, Any]:
        return {
            "file_checks": self.file_checks,
            "bytes_read": self.bytes_read,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "exhausted": self.exhausted,
            "exhausted_by": self.exhausted_by,
            "cached": self.cached,
            "limits": {
                "file_checks": self.max_file_checks,
                "bytes": self.max_bytes,
                "deadline_ms": self.deadline_ms,
            },
        }


@dataclass(frozen=True, slots=True)
class FileState:
    """One file as a check found it."""

    revision: str | None
    """The SHA-256 of its bytes now; ``None`` when it is gone, unreadable or unchecked."""
    checked: bool = True
    """``False``: the budget ran out before it could be checked."""
    problem: str | None = None
    """Why there is no revision: ``missing``, ``not_a_note`` (e.g. now a symlink) or
    ``unreadable``."""


UNCHECKED = FileState(None, checked=False)

_Key = tuple[int, int, int, int]


class HashCache:
    """``path -> sha256`` for files whose (device, inode, mtime_ns, size) have not changed
    since they were hashed. Reads go through :meth:`Vault.read_note` (path safety: no
    symlinks, regular files only); the stat key is taken before and after the read, and only
    a file that did not move meanwhile is cached."""

    def __init__(self, vault: Vault, max_entries: int = 65536) -> None:
        self.vault = vault
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[_Key, str]] = OrderedDict()

    def _key(self, rel: str) -> _Key | None:
        # Not a regular file: read_note decides what this is. The key names the file
        # (device, inode) and its state; a hash cached for it was taken through read_note's
        # safe path, so the bytes it describes are the same ones.
        return self.vault.file_key(rel)

    def revision(self, rel: str) -> str:
        """The revision of the note at ``rel`` now, outside any budget; refusals raise
        (:class:`NotFound`, :class:`PathRejected`, :class:`TooLarge`...)."""
        state = self.check(rel, None, strict=True)
        assert state.revision is not None
        return state.revision

    def check(self, rel: str, budget: Budget | None, *, strict: bool = False) -> FileState:
        """The revision of the note at ``rel`` now, spending one check from ``budget``.
        ``strict`` raises what reading raised instead of describing it."""
        if budget is not None and not budget.take_check():
            return UNCHECKED
        key = self._key(rel)
        if key is not None:
            with self._lock:
                hit = self._entries.get(rel)
                if hit is not None and hit[0] == key:
                    self._entries.move_to_end(rel)
                    if budget is not None:
                        budget.cached += 1
                    return FileState(hit[1])
            if budget is not None and not budget.can_read(key[3]):
                return UNCHECKED
        cap = UNBUDGETED_FILE_CAP if budget is None else budget.remaining_bytes
        try:
            read = self.vault.read_file if is_attachment_path(rel) else self.vault.read_note
            rel, raw, size = read(rel, max_bytes=cap + 1)
            if budget is None and size > cap:
                raise TooLarge(f"{rel!r} is {size} bytes; hoard hashes notes up to {cap}", path=rel)
        except HoardError as exc:
            self.forget(rel)
            if strict:
                raise
            if isinstance(exc, NotFound):
                return FileState(None, problem="missing")
            if isinstance(exc, PathRejected):
                return FileState(None, problem="not_a_note")
            return FileState(None, problem="unreadable")
        if budget is not None:
            budget.bytes_read += len(raw)
            if size > cap:
                budget.can_read(size)
                return UNCHECKED
        revision = revision_of(raw)
        if key is not None and self._key(rel) == key:
            with self._lock:
                self._entries[rel] = (key, revision)
                self._entries.move_to_end(rel)
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        return FileState(revision)

    def forget(self, rel: str) -> None:
        with self._lock:
            self._entries.pop(rel, None)
