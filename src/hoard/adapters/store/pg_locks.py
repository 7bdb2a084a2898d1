"""Per-path locks as PostgreSQL session advisory locks, shared by every replica.

A thread's locks live on one connection of a small pool of their own (apart from the pool
the stores' transactions use, so writers waiting for a note never starve the writer that
holds it of a connection), taken when the thread takes its first lock and given back when it
lets go of its last. The server frees a session's locks when the session ends, so a killed
replica leaves no lock held. Waiting is bounded by ``lock_timeout``; running out of time is
``busy`` with the same message as the file locks.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from hoard.adapters.fs import atomic
from hoard.adapters.store.locks import ReentrantLocks
from hoard.adapters.store.pg import PostgresServer, check_in_background
from hoard.adapters.store.sql import lock_key
from hoard.core.errors import Busy, Unavailable

log = logging.getLogger("hoard.store")


def path_key(rel: str) -> int:
    """The advisory lock key of one note path (or of hoard's git lock)."""
    return lock_key("path:" + rel)


def _busy(rel: str) -> Busy:
    return Busy(f"{rel!r} is being written by someone else; try again", path=rel)


class PostgresLocks(ReentrantLocks):
    """Advisory locks on ``server``'s database (see the module's docstring)."""

    def __init__(self, server: PostgresServer, max_size: int = 16) -> None:
        super().__init__()
        self.server = server
        self.max_size = max_size
        self.pool = ConnectionPool(
            server.url,
            min_size=1,
            max_size=max_size,
            open=False,
            kwargs={
                "autocommit": True,
                "application_name": f"hoard {server.replica} locks"[:63],
                "connect_timeout": 5,
            },
            name=f"hoard-locks-{server.replica}",
        )
        self.pool.open(wait=False)
        self._session = threading.local()

    @contextlib.contextmanager
    def _acquire(self, rel: str, timeout: float | None) -> Iterator[None]:
        timeout = atomic.LOCK_TIMEOUT_S if timeout is None else timeout
        deadline = time.monotonic() + timeout
        key = path_key(rel)
        conn = self._connection(rel, deadline)
        try:
            self._wait(conn, rel, key, deadline)
        except BaseException:
            self._let_go(conn, None)
            raise
        try:
            yield
        finally:
            self._let_go(conn, key)

    def _connection(self, rel: str, deadline: float) -> psycopg.Connection[Any]:
        """This thread's lock session (taken from the pool for its first lock)."""
        conn: psycopg.Connection[Any] | None = getattr(self._session, "conn", None)
        if conn is not None:
            self._session.count += 1
            return conn
        try:
            conn = self.pool.getconn(timeout=max(0.001, deadline - time.monotonic()))
        except PoolTimeout as exc:
            stats = self.pool.get_stats()
            if stats.get("pool_size", 0) >= self.max_size and not stats.get("pool_available"):
                raise _busy(rel) from exc  # every lock session is taken: contention
            raise self._unavailable(exc) from exc
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from exc
        self._session.conn, self._session.count = conn, 1
        return conn

    def _wait(self, conn: psycopg.Connection[Any], rel: str, key: int, deadline: float) -> None:
        wait_ms = max(1, int((deadline - time.monotonic()) * 1000))
        try:
            # One round trip: the wait's bound, then the lock (evaluated in that order).
            conn.execute(
                "SELECT set_config('lock_timeout', %s, false), pg_advisory_lock(%s)",
                (f"{wait_ms}ms", key),
            )
        except pg_errors.LockNotAvailable as exc:
            raise _busy(rel) from exc
        except psycopg.OperationalError as exc:
            check_in_background(self.pool)
            raise self._unavailable(exc) from exc

    def _let_go(self, conn: psycopg.Connection[Any], key: int | None) -> None:
        """Release ``key`` (``None``: a lock that was never taken); the session goes back to
        the pool with the thread's last lock. A session whose unlock failed is closed, so the
        server frees whatever it held: a lock is never left behind on a pooled connection."""
        if key is not None and not conn.closed:
            try:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            except psycopg.Error as exc:
                log.warning("releasing a path lock failed (%s); closing its session", exc)
                conn.close()
        self._session.count -= 1
        if self._session.count == 0:
            self._session.conn = None
            self.pool.putconn(conn)

    def _unavailable(self, exc: BaseException) -> Unavailable:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Unavailable(
            f"the shared store at {self.server.where} is unreachable ({first}); nothing was changed"
        )

    def close(self) -> None:
        self.pool.close()
