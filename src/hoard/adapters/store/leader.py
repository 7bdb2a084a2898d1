"""Jobs that must run once among the replicas of a vault (the git sync, the outbox's
pruning): the replica that holds a session-level ``pg_try_advisory_lock`` for the job, on a
connection of its own, runs it. When that replica dies or loses its connection, PostgreSQL
frees the lock and the next replica that asks takes it over.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from hoard.adapters.store.sql import lock_key
from hoard.core.errors import Unavailable

if TYPE_CHECKING:
    from hoard.adapters.store.pg import Dedicated, PostgresServer

log = logging.getLogger("hoard.store")

RETRY_CONNECT_S = 1.0
"""After the database could not be reached, the next try to connect waits this long."""


class LeaderLock:
    """Whether this replica runs job ``job`` (see the module's docstring); thread-safe."""

    def __init__(self, server: PostgresServer, job: str) -> None:
        self.server = server
        self.job = job
        self._conn: Dedicated | None = None
        self._held = False
        self._failed_at = float("-inf")
        self._mutex = threading.Lock()

    def held(self) -> bool:
        """Whether this replica holds the job now: checks that the session holding it is
        alive, or tries to take the lock (never waits for it). ``False`` while the
        database is unreachable."""
        with self._mutex:
            try:
                return self._check()
            except Unavailable as exc:
                if self._held:
                    log.warning("lost the %s job: %s", self.job, exc.message)
                self._drop()
                self._failed_at = time.monotonic()
                return False

    def _check(self) -> bool:
        if self._conn is None:
            if time.monotonic() - self._failed_at < RETRY_CONNECT_S:
                return False
            self._conn = self.server.dedicated(f"job {self.job}")
        if self._held:
            self._conn.rows("SELECT 1")  # the session, and so its lock, is still there
            return True
        row = self._conn.rows("SELECT pg_try_advisory_lock(%s)", (job_key(self.job),))
        self._held = bool(row and row[0][0])
        if self._held:
            log.info("this replica runs the %s job", self.job)
        return self._held

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._held = False

    def release(self) -> None:
        """Give the job up (closing the session frees the lock at once)."""
        with self._mutex:
            self._drop()


def job_key(job: str) -> int:
    """The advisory lock key of job ``job``."""
    return lock_key(f"job:{job}")


class SyncLeader:
    """The permit of the git sync job (:class:`hoard.app.sync.permit.SyncPermit`) among
    replicas sharing a store: the replica holding the ``sync`` job pulls and pushes."""

    JOB = "sync"

    def __init__(self, server: PostgresServer) -> None:
        self.lock = LeaderLock(server, self.JOB)

    def may_sync(self) -> bool:
        return self.lock.held()

    def release(self) -> None:
        self.lock.release()
