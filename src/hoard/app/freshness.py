"""Keeping the index in step with the files: the cheap check before a read, the background
deep check of a long-running server, and the one-at-a-time repair of a failing index."""

from __future__ import annotations

import logging
import threading
import time

from hoard.adapters.fs.background import run_at_low_priority
from hoard.adapters.fs.watcher import Watcher
from hoard.adapters.index.store import Index, IndexUntrusted
from hoard.adapters.search.typos import Vocabulary
from hoard.adapters.store_errors import StoreError

log = logging.getLogger("hoard")

STAT_WALK_INTERVAL_S = 1.0
REPAIR_RETRY_S = 10.0
"""After a repair that failed (say, the state folder is read-only), the next try waits this
long; searches meanwhile answer with the labeled substring scan."""


class IndexStale(IndexUntrusted):
    """The index missed a write (a note changed on disk but not in the index): until a
    repair catches it up, it is treated like a distrusted one, so searches answer from the
    files, labeled, and never silently without the note."""


class IndexKeeper:
    """Freshness and repair of one index; thread-safe."""

    def __init__(self, index: Index, watcher: Watcher | None) -> None:
        self.index = index
        self.watcher = watcher
        self._last_walk = time.monotonic()
        self._repair_lock = threading.Lock()
        self._repairing: threading.Thread | None = None
        self._failed_at = 0.0
        self._stale: str | None = None
        self._misses = 0

    @property
    def stale(self) -> str | None:
        """Why the index is behind the files (it missed a write), or ``None``."""
        return self._stale

    def ensure_fresh(self) -> None:
        """Before a read of the index: make sure the file is one hoard verified or changed
        itself (else raise :class:`IndexUntrusted`, a database error, and start a repair);
        then, with the watcher running, nothing to do (it applies changes as they happen);
        without it, a stat walk at most once a second. An index that missed a write raises
        :class:`IndexStale` until a repair has caught it up."""
        stale = self._stale
        if stale is not None:
            self.schedule_repair()
            raise IndexStale(f"the index missed a write ({stale}); it is being rebuilt")
        if not self.index.trusted():
            self.schedule_repair()
            raise IndexUntrusted("index.db changed outside hoard; it is being checked")
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

    def failed(self, exc: BaseException) -> None:
        """A use-case hit a database error from the index: log it and start a repair."""
        log.warning("the index failed (%s: %s); repairing it", type(exc).__name__, exc)
        self.schedule_repair()

    def missed_write(self, exc: BaseException) -> None:
        """Applying a change to the index failed: the index is stale until a repair that
        started after this succeeds (searches meanwhile come from the files, labeled)."""
        with self._repair_lock:
            self._misses += 1
            self._stale = f"{type(exc).__name__}: {exc}"
        self.failed(exc)

    def schedule_repair(self) -> None:
        """Check and rebuild a failing index in the background, once at a time."""
        with self._repair_lock:
            if self._repairing is not None:
                return
            if time.monotonic() - self._failed_at < REPAIR_RETRY_S:
                return
            self._repairing = threading.Thread(
                target=self._repair, name="hoard-repair", daemon=True
            )
            self._repairing.start()

    def _repair(self) -> None:
        """Deep-check the file; rebuild it when that fails; then catch up with the files
        (changes made while the index was refused were not applied to it). A stale index is
        fresh again once that catch-up ran with no write missed since the repair began."""
        with self._repair_lock:
            misses = self._misses
        caught_up = False
        try:
            problem = self.index.check()
            if problem is not None:
                log.warning("rebuilding the index: %s", problem)
                self.index.last_problem = problem
                self.index.rebuild()
            self.index.sync()
            self.walked()
            caught_up = True
        except (StoreError, OSError) as exc:
            self._failed_at = time.monotonic()
            log.error("index repair failed (%s: %s); retrying later", type(exc).__name__, exc)
        except Exception:
            self._failed_at = time.monotonic()
            log.exception("index repair failed")
        finally:
            with self._repair_lock:
                self._repairing = None
                if caught_up and self._misses == misses:
                    self._stale = None
                again = self._stale is not None and caught_up
        if again:
            self.schedule_repair()  # a write was missed while this repair ran

    def wait_for_repair(self, timeout: float | None = None) -> None:
        """Let a running repair finish (a CLI command does before it exits)."""
        thread = self._repairing
        if thread is not None:
            thread.join(timeout)
