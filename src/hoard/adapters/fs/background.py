"""Background work that must not slow the requests a server is answering.

The deep integrity check of a server's index (``quick_check`` and the FTS5
``integrity-check``) takes about 23 s of CPU on a 250,000-note vault, inside SQLite with
the GIL released. On two cores it took a core from the searches that ran meanwhile (p50
33 ms against 28 ms once it was done). On Linux a thread has its own nice value, so the
check runs in a thread of its own at the lowest priority: it still finishes, on a core
nothing else wants. A thread started from it would inherit that priority, so only work
that holds the GIL little belongs there (a niced thread that holds the GIL would make
every other thread wait for it).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

LOW_PRIORITY = 19
"""The nice value of a low-priority thread (the lowest Linux has)."""


def run_at_low_priority(fn: Callable[[], T], name: str) -> T:
    """``fn()`` in a new thread at the lowest priority (Linux; elsewhere at the caller's),
    waited for; its result, or its exception raised here."""
    out: list[T] = []
    failed: list[BaseException] = []

    def body() -> None:
        lower_this_thread()
        try:
            out.append(fn())
        except BaseException as exc:  # handed to the caller's thread
            failed.append(exc)

    worker = threading.Thread(target=body, name=name, daemon=True)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return out[0]


def lower_this_thread() -> None:
    """Give the calling thread the lowest scheduling priority, if this platform has
    per-thread priorities (Linux: ``setpriority`` on the thread id)."""
    if not sys.platform.startswith("linux"):
        return  # elsewhere the id would name a process, not this thread
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY)
