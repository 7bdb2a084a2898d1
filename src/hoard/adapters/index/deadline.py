"""A time budget on the index's SQL: SQLite itself stops a statement that runs past it.

``with interrupting(conn, deadline) as clock:`` installs a progress handler that aborts the
running statement once ``time.monotonic()`` passes ``deadline`` (SQLite raises
``sqlite3.OperationalError: interrupted``); :func:`is_interrupt` tells that error from a
damaged file, which must lead to the fallback and a rebuild instead. The handler is removed
on the way out, so the thread's connection serves the next request unbudgeted.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CHECK_EVERY = 20_000
"""SQLite virtual-machine steps between two looks at the clock (a few hundred microseconds of
work: the check costs nothing measurable and the overrun stays well under a millisecond)."""


@dataclass(slots=True)
class Clock:
    deadline: float | None
    hit: bool = False
    """Whether a statement was stopped, or a step skipped, for the budget."""

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def skip(self) -> bool:
        """Is the budget spent? (Then the optional step that asks is skipped, and counted.)"""
        if self.expired():
            self.hit = True
            return True
        return False


@contextmanager
def interrupting(conn: sqlite3.Connection, deadline: float | None) -> Iterator[Clock]:
    clock = Clock(deadline)
    if deadline is None:
        yield clock
        return

    def past() -> int:
        return 1 if time.monotonic() >= deadline else 0

    conn.set_progress_handler(past, CHECK_EVERY)
    try:
        yield clock
    finally:
        conn.set_progress_handler(None, 0)


def is_interrupt(exc: BaseException) -> bool:
    """A statement stopped by :func:`interrupting` (not a damaged or locked file)."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted"
