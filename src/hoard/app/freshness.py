"""Keeping the index in step with the files: the cheap check before a read, the background
deep check of a long-running server, and the one-at-a-time repair of a failing index."""

from __future__ import annotations

import logging
import threading
import time

from hoard.adapters.fs.background import run_at_low_priority
from hoard.adapters.fs.watcher import Watcher
from hoard.adapters.index.store import Index
from hoard.adapters.search.typos import Vocabulary

log = logging.getLogger("hoard")

STAT_WALK_INTERVAL_S = 1.0


class IndexKeeper:
    """Freshness and repair of one index; thread-safe."""

    def __init__(self, index: Index, watcher: Watcher | None) -> None:
        self.index = index
        self.watcher = watcher
        self._last_walk = time.monotonic()
        self._repair_lock = threading.Lock()
        self._repairing = False

    def ensure_fresh(self) -> None:
        """Before a read of the index: with the watcher running, nothing to do (it applies
        changes as they happen); without it, a stat walk at most once a second."""
        if self.watcher is not None and self.watcher.running:
            return
        now = time.monotonic()
        if now - self._last_walk >= STAT_WALK_INTERVAL_S:
            self._last_walk = now
            self.index.sync()

    def walked(self) -> None:
        """A full sync or rebuild just ran: the next stat walk can wait its interval."""
        self._last_walk = time.monotonic()

    def start_background_check(self, vocab: Vocabulary) -> None:
        """A long-running server also runs the deep integrity check (startup trusted a file
        that passed it before and has not changed since) and warms the typo vocabulary, both
        off the request path."""
        threading.Thread(
            target=self._background_check, args=(vocab,), name="hoard-deep-check", daemon=True
        ).start()

    def _background_check(self, vocab: Vocabulary) -> None:
        try:
            problem = run_at_low_priority(lambda: self.index.check(deep=True), "hoard-check")
            if problem is not None:
                log.warning("the deep index check failed (%s); rebuilding", problem)
                self.schedule_repair()
                return
            vocab.warm(self.index.reader_token())
        except Exception as exc:  # a background check must never take the server down
            log.warning("background index check failed: %s", exc)

    def schedule_repair(self) -> None:
        """Check and rebuild a failing index in the background, once at a time."""
        with self._repair_lock:
            if self._repairing:
                return
            self._repairing = True
        threading.Thread(target=self._repair, name="hoard-repair", daemon=True).start()

    def _repair(self) -> None:
        try:
            problem = self.index.check()
            if problem is not None:
                log.warning("rebuilding the index: %s", problem)
                self.index.rebuild()
        except Exception as exc:
            log.error("index repair failed: %s", exc)
        finally:
            with self._repair_lock:
                self._repairing = False
