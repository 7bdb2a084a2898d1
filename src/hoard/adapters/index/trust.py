"""Which state of ``index.db`` may be trusted without the deep checks.

The deep checks (``quick_check`` and the FTS5 ``integrity-check``) cost about half a second
per 40 MB of index, too much for every start of a CLI command. So a small stamp file beside
the index (``index.db.verified``) records the file's signature (device, inode, size, mtime,
ctime, type and the config fingerprint) at the moment it was last known sound: just checked,
just built, or just changed by hoard itself through SQLite starting from a trusted state (the
chain of trust: trusted before our own transaction means trusted after it).

Anything else that changes the file (an editor, a disk fault, ``truncate``, a copy) changes
its ctime at least, breaks the chain, and the next look re-runs the deep checks. Every hoard
process sharing the state folder keeps the same stamp, so one process's writes do not make
the others distrust the index: a writer holds the stamp's lock file (``flock``) from its
look at the file before a transaction until the new stamp is written, so no other process
sees the file changed and the stamp not yet.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

Signature = dict[str, Any]


class TrustStamp:
    """The ``.verified`` stamp of one index file; thread-safe."""

    def __init__(self, db: Path, fingerprint: str) -> None:
        self.db = db
        self.fingerprint = fingerprint
        self.path = db.with_name(db.name + ".verified")
        self.lock_path = db.with_name(db.name + ".verified.lock")
        self._lock = threading.Lock()
        self._known: Signature | None = None
        """The last signature found trusted by this process (spares reading the stamp)."""

    @contextlib.contextmanager
    def held(self, timeout: float | None = None) -> Iterator[bool]:
        """Hold the stamp's lock across processes (``True``), or give up after ``timeout``
        seconds (``False``). A state folder where the lock file cannot be made holds no lock
        (``True``: a single process is still exact)."""
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            yield True
            return
        try:
            yield _flock(fd, timeout)
        finally:
            os.close(fd)

    def signature(self) -> Signature | None:
        """The file's signature now, or ``None`` when there is no file to speak of."""
        try:
            st = os.stat(self.db)
        except OSError:
            return None
        return {
            "dev": st.st_dev,
            "ino": st.st_ino,
            "mode": st.st_mode,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns,
            "fingerprint": self.fingerprint,
        }

    def _recorded(self) -> Signature | None:
        try:
            value = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def is_trusted(self, sig: Signature | None = None) -> bool:
        """Whether the file (as ``sig``, or as it is now) is a state that passed the checks."""
        sig = self.signature() if sig is None else sig
        if sig is None:
            return False
        if sig == self._known:
            return True
        if sig == self._recorded():
            self._known = sig
            return True
        return False

    def mark(self) -> None:
        """The file as it is now is sound (just checked, just built)."""
        sig = self.signature()
        if sig is None:
            return
        with self._lock:
            self._known = sig
            if sig == self._recorded():
                return
            with contextlib.suppress(OSError):
                tmp = self.path.with_name(self.path.name + f".tmp-{os.getpid()}")
                tmp.write_text(json.dumps(sig))
                os.replace(tmp, self.path)

    def carry(self, before: Signature | None) -> None:
        """Hoard itself just changed the file through SQLite: when it was trusted before,
        it is trusted now."""
        if before is not None and self.is_trusted(before) and self.signature() != before:
            self.mark()

    def forget(self) -> None:
        """Nothing is trusted any more (the file is being replaced or was found broken)."""
        with self._lock:
            self._known = None
            with contextlib.suppress(OSError):
                self.path.unlink()


def _flock(fd: int, timeout: float | None) -> bool:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
