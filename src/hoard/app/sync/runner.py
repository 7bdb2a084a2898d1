"""The sync job on a running server: a pull every ``[git] pull_every_s``, and a push soon
after hoard commits (a burst of writes is one push: it goes after :data:`QUIET_S` without a
new commit, and never later than :data:`MAX_DELAY_S` after the burst's first). Pushes that
fail are retried every :data:`RETRY_S`. Each run asks the permit first; runs never overlap.
"""

from __future__ import annotations

import logging
import threading
import time

from hoard.app.sync.job import SyncJob
from hoard.core.sync_results import SyncRunResult

log = logging.getLogger("hoard.sync")

QUIET_S = 1.0
MAX_DELAY_S = 8.0
RETRY_S = 15.0


class SyncRunner:
    def __init__(self, job: SyncJob) -> None:
        self.job = job
        self._cond = threading.Condition()
        self._run_lock = threading.Lock()
        self._first: float | None = None
        self._last: float | None = None
        self._wanted = False
        self._stopped = False
        self._thread: threading.Thread | None = None
        every = job.git_config.pull_every_s
        self._next_pull = time.monotonic() if every else float("inf")

    def start(self) -> None:
        if self._thread is None and self.job.enabled:
            self._thread = threading.Thread(target=self._loop, name="hoard-sync", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def committed(self) -> None:
        """hoard made a commit: push it soon (batched with the commits that follow)."""
        now = time.monotonic()
        with self._cond:
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    def wake(self) -> None:
        """Run as soon as possible (the owner asked)."""
        with self._cond:
            self._wanted = True
            self._cond.notify_all()

    def run_now(self, *, accept_remote: bool = False) -> tuple[SyncRunResult, str | None]:
        """One run in the calling thread, after any run in progress."""
        with self._run_lock:
            with self._cond:
                self._first = self._last = None
            return self.job.run(accept_remote=accept_remote)

    def _due(self) -> float:
        push_due = float("inf")
        if self._first is not None and self._last is not None:
            push_due = min(self._last + QUIET_S, self._first + MAX_DELAY_S)
        return 0.0 if self._wanted else min(self._next_pull, push_due)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and self._due() > time.monotonic():
                    self._cond.wait(timeout=min(self._due() - time.monotonic(), 60.0))
                if self._stopped:
                    return
                self._wanted = False
            try:
                _, error = self.run_now()
            except Exception:  # the sync thread must outlive any surprise
                log.exception("sync run failed")
                error = "internal error"
            every = self.job.git_config.pull_every_s
            now = time.monotonic()
            self._next_pull = now + every if every else float("inf")
            if error is not None and self.job.unpushed_count():
                self._next_pull = min(self._next_pull, now + RETRY_S)
