"""Per-path locks: what serialises the writes to one note (and hoard's git work) across this
process's threads and, on a shared store, across every replica of the vault.

Two implementations behind :class:`PathLocks`: ``flock`` files in the state folder (one
process, the default: :func:`hoard.adapters.fs.atomic.path_lock`) and PostgreSQL advisory
locks (:mod:`hoard.adapters.store.pg_locks`), chosen by the store's engine. Both are
re-entrant within a thread (a confirm holds the note's lock while the write it applies takes
it again), and :meth:`PathLocks.locks` always takes several in sorted order, so two writers
never wait for each other in a circle.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from hoard.adapters.fs import atomic


class PathLocks(Protocol):
    def lock(self, rel: str, timeout: float | None = None) -> AbstractContextManager[None]:
        """Hold the exclusive lock of one note path; ``busy`` after ``timeout`` seconds
        (default :data:`hoard.adapters.fs.atomic.LOCK_TIMEOUT_S`, read at call time)."""
        ...

    def locks(self, rels: Iterable[str]) -> AbstractContextManager[None]:
        """Several path locks, taken in sorted order."""
        ...


class ReentrantLocks:
    """The re-entrancy and ordering both implementations share; ``_acquire`` takes one lock
    this thread does not hold yet."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _held(self) -> dict[str, int]:
        held: dict[str, int] | None = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = {}
        return held

    @contextlib.contextmanager
    def lock(self, rel: str, timeout: float | None = None) -> Iterator[None]:
        held = self._held()
        if rel in held:
            held[rel] += 1
            try:
                yield
            finally:
                held[rel] -= 1
            return
        with self._acquire(rel, timeout):
            held[rel] = 1
            try:
                yield
            finally:
                del held[rel]

    @contextlib.contextmanager
    def locks(self, rels: Iterable[str]) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for rel in sorted(set(rels)):
                stack.enter_context(self.lock(rel))
            yield

    def _acquire(self, rel: str, timeout: float | None) -> AbstractContextManager[None]:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release by default."""


class FileLocks(ReentrantLocks):
    """``flock`` files under ``lock_dir`` (the state folder's ``locks``)."""

    def __init__(self, lock_dir: Path) -> None:
        super().__init__()
        self.lock_dir = lock_dir

    def _acquire(self, rel: str, timeout: float | None) -> AbstractContextManager[None]:
        return atomic.path_lock(self.lock_dir, rel, timeout)
