"""Where this process keeps the state it shares: files of its state folder (one process, the
default), or one PostgreSQL database shared by every replica of the vault (``[store] url``,
``HOARD_STORE_URL`` wins)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

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


def default_replica_name() -> str:
    """This process's name among the replicas: the host name and the pid."""
    return f"{socket.gethostname()}-{os.getpid()}"


class SharedStore:
    """Opens each component's :class:`Database` in the right place."""

    def __init__(self, state_dir: Path, url: str, replica: str, pool_size: int = 16) -> None:
        self.state_dir = state_dir
        self.replica = replica
        self.server: PostgresServer | None = None
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

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
