"""Where this process keeps the state it shares: files of its state folder (one process, the
default), or one PostgreSQL database shared by every replica of the vault (``[store] url``,
``HOARD_STORE_URL`` wins)."""

from __future__ import annotations

import hashlib
import os
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from hoard.adapters.store.locks import FileLocks, PathLocks, ReentrantLocks
from hoard.adapters.store.sql import Database, Engine
from hoard.adapters.store.sqlite_db import SqliteDatabase
from hoard.core.config import Config
from hoard.core.errors import ConfigError

if TYPE_CHECKING:
    from hoard.adapters.store.pg import PostgresServer

STORE_URL_ENV = "HOARD_STORE_URL"


def store_url(config: Config) -> str:
    """The configured store: ``HOARD_STORE_URL`` if set, else ``[store] url`` ("" = files)."""
    return os.environ.get(STORE_URL_ENV, "").strip() or config.store.url


def default_replica_name(state_dir: Path | None = None) -> str:
    """This process's name among the replicas: the host name and a hash of its state folder
    (its local index), so a replica restarted on the same folder is the same replica and
    settles the writes its crash interrupted; without a state folder (a one-shot command
    that keeps nothing), the host name and the pid."""
    host = socket.gethostname()
    if state_dir is None:
        return f"{host}-{os.getpid()}"
    digest = hashlib.sha256(str(state_dir.resolve()).encode("utf-8")).hexdigest()[:8]
    return f"{host}-{digest}"


def replica_tag(replica: str) -> str:
    """A replica's name as it can stand in a file name: letters, digits, ``_`` and ``-``
    (at most 40), with a short hash of the name when anything had to change, so two names
    never share a tag."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", replica)[:40] or "_"
    if safe == replica:
        return safe
    return f"{safe}_{hashlib.sha256(replica.encode('utf-8')).hexdigest()[:8]}"


class SharedStore:
    """Opens each component's :class:`Database` in the right place."""

    def __init__(self, state_dir: Path, url: str, replica: str, pool_size: int = 16) -> None:
        self.state_dir = state_dir
        self.replica = replica
        self.server: PostgresServer | None = None
        self.pool_size = pool_size
        self._lock_sets: list[ReentrantLocks] = []
        if url:
            # psycopg takes 0.2 s to import: a process on the state folder never pays it.
            try:
                from hoard.adapters.store.pg import PostgresServer
            except ImportError as exc:
                raise ConfigError(
                    "store.url",
                    f"a PostgreSQL store needs hoard's postgres extra "
                    f"(pip install 'hoard[postgres]'): {exc}",
                ) from exc
            self.server = PostgresServer(url, replica, max_size=pool_size)

    @property
    def engine(self) -> Engine:
        return "sqlite" if self.server is None else "postgres"

    @property
    def where(self) -> str:
        return str(self.state_dir) if self.server is None else self.server.where

    def database(self, component: str, migrations: tuple[str, ...], file_name: str) -> Database:
        """One component's tables: ``file_name`` in the state folder, or its tables in the
        shared database (whose schema ``hoard store init`` must have brought up to date)."""
        if self.server is None:
            return SqliteDatabase(self.state_dir / file_name, migrations)
        return self.server.database(component, migrations)

    def path_locks(self) -> PathLocks:
        """A new set of per-path locks: ``flock`` files in the state folder, or advisory
        locks in the shared database (on a pool of their own). Locks of two sets exclude
        each other like those of two processes; within one set a thread may re-take a lock
        it holds."""
        locks: ReentrantLocks
        if self.server is None:
            locks = FileLocks(self.state_dir / "locks")
        else:
            from hoard.adapters.store.pg_locks import PostgresLocks  # psycopg, like pg

            locks = PostgresLocks(self.server, self.pool_size)
        self._lock_sets.append(locks)
        return locks

    def stage_tag(self) -> str | None:
        """What this replica's stage files carry in their names (a file-name-safe form of
        its name), so its startup sweep touches only its own; ``None`` for one process on
        the state folder, whose stage files keep the plain names of before."""
        return None if self.server is None else replica_tag(self.replica)

    def close(self) -> None:
        for locks in self._lock_sets:
            locks.close()
        if self.server is not None:
            self.server.close()
