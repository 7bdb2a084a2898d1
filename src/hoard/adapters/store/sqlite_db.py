"""Shared state in one SQLite file of the state folder: the default, for one process.

Schema changes are numbered migrations applied in order inside one transaction each
(``PRAGMA user_version`` records how far a file has come); a file from a newer hoard is
refused rather than guessed at. Writers are serialised in the process and by ``BEGIN
IMMEDIATE`` across processes; each thread reads on its own connection (WAL lets readers run
beside a writer), closed with the thread.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from hoard.adapters.store.sql import Engine, SqlConn, statements
from hoard.core.errors import IoError


class _Reader:
    """A thread's read connection; it closes with the thread (sqlite3 connections take no
    weak references, their holder does)."""

    __slots__ = ("__weakref__", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn


class SqliteDatabase:
    engine: Engine = "sqlite"

    def __init__(self, path: Path, migrations: tuple[str, ...]) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._local = threading.local()
        # Weak, so a worker thread's reader closes when the thread ends (thread pools churn).
        self._readers: weakref.WeakSet[_Reader] = weakref.WeakSet()
        self._readers_lock = threading.Lock()
        self._conn = sqlite3.connect(
            path, timeout=10.0, check_same_thread=False, isolation_level=None
        )
        try:
            self._refuse_newer(len(migrations))
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._migrate(migrations)
        except BaseException:
            self._conn.close()
            raise

    @property
    def where(self) -> str:
        return str(self.path)

    def _refuse_newer(self, known: int) -> None:
        version = self.schema_version
        if version > known:
            raise IoError(
                f"{self.path} was written by a newer hoard (schema {version}; this one knows "
                f"{known}); refusing to touch it"
            )

    def _migrate(self, migrations: tuple[str, ...]) -> None:
        with self._lock:
            self._refuse_newer(len(migrations))
            for number in range(self.schema_version, len(migrations)):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in statements(migrations[number]):
                        self._conn.execute(stmt)
                    self._conn.execute(f"PRAGMA user_version = {number + 1}")
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def transaction(self, durable: bool = True) -> Iterator[SqlConn]:
        """``durable=False`` commits with ``synchronous=NORMAL``: safe against a crash of
        this process, not of the machine. Inside a transaction of this thread, it joins it."""
        with self._lock:
            if getattr(self._local, "writing", 0):
                yield self._conn
                return
            if not durable:
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._local.writing = getattr(self._local, "writing", 0) + 1
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
            finally:
                self._local.writing -= 1
                if not durable:
                    self._conn.execute("PRAGMA synchronous=FULL")

    @contextlib.contextmanager
    def read(self) -> Iterator[SqlConn]:
        """This thread's read connection; inside its own transaction, the writer's."""
        if getattr(self._local, "writing", 0):
            yield self._conn
            return
        reader: _Reader | None = getattr(self._local, "reader", None)
        if reader is None:
            conn = sqlite3.connect(
                self.path, timeout=10.0, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA query_only=ON")
            reader = _Reader(conn)
            with self._readers_lock:
                self._readers.add(reader)
            self._local.reader = reader
        yield reader.conn

    def close(self) -> None:
        with self._readers_lock:
            readers = list(self._readers)
            self._readers.clear()
        for reader in readers:
            reader.conn.close()
        with self._lock:
            self._conn.close()
