"""Shared state in PostgreSQL (``[store] url``): every replica of a vault reads and writes the
same rows through a small pool of connections (psycopg 3, synchronous, no ORM).

Each store (the ledger, callers, web sessions, OAuth) is a *component* with its own numbered
migrations, recorded in ``hoard_schema``. A replica never changes the schema on its own:
``hoard store init`` does, under an advisory lock, so two replicas of different versions
never race to upgrade. Write transactions of one component are serialised across every
replica by a transaction-scoped advisory lock, exactly as SQLite's ``BEGIN IMMEDIATE``
serialises them in one file, so every check-then-insert reads the same on both engines.

When the database cannot be reached, every call raises ``unavailable`` and nothing is
changed; a connection the server dropped (a restart) is noticed when it is next taken from
the pool and replaced.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from hoard.adapters.store.dialect import postgres_ddl, postgres_query
from hoard.adapters.store.sql import Engine, SqlConn, SqlCursor, lock_key, statements
from hoard.core.errors import ConfigError, IoError, Unavailable

RETRY_AFTER_S = 1.0
"""After the store was found unreachable, how long calls fail at once."""
RETRY_WAIT_S = 0.5
"""How long a call waits for a connection while the store has been unreachable."""

SCHEMA_TABLE = """
CREATE TABLE IF NOT EXISTS hoard_schema(
  component TEXT PRIMARY KEY,
  version BIGINT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


def redacted(url: str) -> str:
    """A URL fit for messages and logs: no password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unparsable URL)"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = f"{parts.username}:***@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}{port}"))


class PgConn:
    """A psycopg connection that takes SQLite-style statements. Inside a write transaction
    it is in pipeline mode (``pipe``): a statement is sent when a result is wanted (a fetch,
    a row count) or the transaction ends, so statements that need no answer in between
    travel together."""

    __slots__ = ("pipe", "raw")

    def __init__(self, raw: psycopg.Connection[Any], pipe: psycopg.Pipeline | None = None):
        self.raw = raw
        self.pipe = pipe

    def execute(self, sql: str, parameters: Any = (), /) -> SqlCursor:
        if parameters:
            cur = self.raw.execute(postgres_query(sql), parameters)
        else:
            cur = self.raw.execute(sql.encode("utf-8"))
        return cur if self.pipe is None else _PipedCursor(cur, self.pipe)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> object:
        if self.pipe is not None:  # one pipeline already: each row's statement joins it
            for parameters in seq_of_parameters:
                self.raw.execute(postgres_query(sql), parameters)
            return None
        with self.raw.cursor() as cur:
            cur.executemany(postgres_query(sql), seq_of_parameters)
        return None


class _PipedCursor:
    """A cursor of a pipelined statement: fetching its rows flushes the pipeline (psycopg
    does), and so does asking how many rows it changed."""

    __slots__ = ("cur", "pipe")

    def __init__(self, cur: psycopg.Cursor[Any], pipe: psycopg.Pipeline) -> None:
        self.cur = cur
        self.pipe = pipe

    @property
    def rowcount(self) -> int:
        if self.cur.pgresult is None:
            self.pipe.sync()  # inside the transaction's BEGIN: a sync commits nothing
        return self.cur.rowcount

    def fetchone(self) -> Any:
        return self.cur.fetchone()

    def fetchall(self) -> list[Any]:
        return self.cur.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.cur)


@contextlib.contextmanager
def _unavailable_on_failure(where: str) -> Iterator[None]:
    try:
        yield
    except psycopg.OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Unavailable(
            f"the shared store at {where} is unreachable ({first}); nothing was changed"
        ) from exc


def check_in_background(pool: ConnectionPool[Any]) -> None:
    """Test the pool's idle connections and replace the dead ones (a restarted server leaves
    every pooled connection dead), without holding up the caller. Connections are not tested
    each time they are taken: that cost a round trip on every statement."""
    threading.Thread(target=pool.check, name="hoard-pool-check", daemon=True).start()


class PostgresServer:
    """One PostgreSQL database and this process's pool of connections to it."""

    def __init__(self, url: str, replica: str, *, max_size: int = 16, wait_s: float = 5.0):
        if not url.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                "store.url", f"{redacted(url)!r} must start with postgresql:// (or postgres://)"
            )
        self.url = url
        self.where = redacted(url)
        self.replica = replica
        self._wait_s = wait_s
        self._down_until = 0.0
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            timeout=wait_s,
            open=False,
            kwargs={
                "autocommit": True,
                "application_name": f"hoard {replica}"[:63],
                "connect_timeout": max(1, int(wait_s)),
            },
            name=f"hoard-{replica}",
        )
        with _unavailable_on_failure(self.where):
            # One direct connection first: a refused or misnamed server is said at once,
            # where the pool would retry it until its timeout.
            psycopg.connect(url, connect_timeout=max(1, int(wait_s))).close()
            self.pool.open(wait=True, timeout=wait_s)

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection (autocommit), or ``unavailable``. Once the server was found
        unreachable, calls fail at once for :data:`RETRY_AFTER_S` and then wait for a
        connection only briefly, so a replica keeps answering what needs no store quickly
        during an outage instead of every call waiting out the pool's timeout."""
        now = time.monotonic()
        if now < self._down_until:
            raise Unavailable(
                f"the shared store at {self.where} is unreachable; nothing was changed"
            )
        wait = self._wait_s if self._down_until == 0.0 else min(self._wait_s, RETRY_WAIT_S)
        try:
            with _unavailable_on_failure(self.where), self.pool.connection(timeout=wait) as conn:
                yield conn
        except Unavailable:
            self._down_until = time.monotonic() + RETRY_AFTER_S
            check_in_background(self.pool)
            raise
        self._down_until = 0.0

    def database(self, component: str, migrations: tuple[str, ...]) -> PostgresDatabase:
        return PostgresDatabase(self, component, migrations)

    def dedicated(self, purpose: str) -> Dedicated:
        """A connection of its own, outside the pool (see :class:`Dedicated`)."""
        return Dedicated(self, purpose)

    def close(self) -> None:
        self.pool.close()


class PostgresDatabase:
    """One component's tables in the shared database (see the module's docstring)."""

    engine: Engine = "postgres"

    def __init__(self, server: PostgresServer, component: str, migrations: tuple[str, ...]):
        self.server = server
        self.component = component
        self.migrations = migrations
        self._writer_key = lock_key(f"writer:{component}")
        self._local = threading.local()
        self._check_schema()

    @property
    def where(self) -> str:
        return self.server.where

    def _check_schema(self) -> None:
        version, known = self.schema_version, len(self.migrations)
        if version > known:
            raise IoError(
                f"the store at {self.where} was set up by a newer hoard ({self.component} "
                f"schema {version}; this one knows {known}); refusing to touch it"
            )
        if version < known:
            raise Unavailable(
                f"the store at {self.where} has {self.component} schema {version}; this "
                f"hoard needs {known}: run `hoard store init` first"
            )

    @property
    def schema_version(self) -> int:
        return schema_version(self.server, self.component)

    def migrate(self) -> int:
        """Apply this component's pending migrations; the number applied."""
        return migrate(self.server, self.component, self.migrations)

    @contextlib.contextmanager
    def transaction(self, durable: bool = True) -> Iterator[SqlConn]:
        """The transaction runs in one pipeline: ``BEGIN``, the writer's lock, the
        statements and ``COMMIT`` go to the server together unless a result is wanted
        before the end, so a transaction whose answers are read after it (see
        :func:`hoard.adapters.ledger.events.add_event`) is one round trip, and the writer's
        lock is never held across one. Nothing is committed unless the block ends without
        an exception and every statement succeeded."""
        held: PgConn | None = getattr(self._local, "conn", None)
        if held is not None:  # a transaction of this thread is open: join it
            yield held
            return
        with self.server.connection() as raw:
            try:
                with raw.pipeline() as pipe:
                    raw.execute(b"BEGIN")
                    raw.execute(
                        "SELECT set_config('synchronous_commit', CASE WHEN %s THEN "
                        "current_setting('synchronous_commit') ELSE 'off' END, true), "
                        "pg_advisory_xact_lock(%s)",
                        (durable, self._writer_key),
                    )
                    self._local.conn = PgConn(raw, pipe)
                    yield self._local.conn
                    raw.execute(b"COMMIT")
            finally:
                self._local.conn = None
                _roll_back_if_open(raw)

    @contextlib.contextmanager
    def read(self) -> Iterator[SqlConn]:
        held: PgConn | None = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self.server.connection() as raw:
            yield PgConn(raw)

    def close(self) -> None:
        """The pool belongs to the server, closed with it."""


def _roll_back_if_open(raw: psycopg.Connection[Any]) -> None:
    """After a transaction's pipeline: a block that raised (or a statement that failed)
    left the transaction open or failed; end it before the connection goes back."""
    if raw.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
        raw.execute(b"ROLLBACK")


def schema_version(server: PostgresServer, component: str) -> int:
    with server.connection() as conn:
        exists = conn.execute("SELECT to_regclass('hoard_schema') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return 0
        row = conn.execute(
            "SELECT version FROM hoard_schema WHERE component = %s", (component,)
        ).fetchone()
    return int(row[0]) if row else 0


def migrate(server: PostgresServer, component: str, migrations: tuple[str, ...]) -> int:
    """Bring one component's tables up to date in one transaction (replicas starting
    ``hoard store init`` at once wait for each other)."""
    with server.connection() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key("schema"),))
        conn.execute(SCHEMA_TABLE)
        row = conn.execute(
            "SELECT version FROM hoard_schema WHERE component = %s", (component,)
        ).fetchone()
        version = int(row[0]) if row else 0
        if version > len(migrations):
            raise IoError(
                f"the store at {server.where} was set up by a newer hoard ({component} "
                f"schema {version}; this one knows {len(migrations)})"
            )
        for number in range(version, len(migrations)):
            for stmt in statements(migrations[number]):
                conn.execute(postgres_ddl(stmt).encode("utf-8"))
        conn.execute(
            "INSERT INTO hoard_schema(component, version) VALUES(%s, %s) "
            "ON CONFLICT(component) DO UPDATE SET version = excluded.version, at = now()",
            (component, len(migrations)),
        )
    return len(migrations) - version


class Dedicated:
    """One connection of its own, outside the pool (autocommit), for what must stay on one
    session: a ``LISTEN``, or an advisory lock held for as long as this process holds a job.
    Every failure of the server or the network raises ``unavailable``; the connection is
    then :attr:`broken` and the owner opens a new one."""

    def __init__(self, server: PostgresServer, purpose: str, wait_s: float = 5.0) -> None:
        self.where = server.where
        self.broken = False
        with _unavailable_on_failure(self.where):
            self.raw: psycopg.Connection[Any] = psycopg.Connection.connect(
                server.url,
                autocommit=True,
                application_name=f"hoard {server.replica} {purpose}"[:63],
                connect_timeout=max(1, int(wait_s)),
            )

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        try:
            with _unavailable_on_failure(self.where):
                yield
        except Unavailable:
            self.broken = True
            raise
        except psycopg.InterfaceError as exc:  # closed under us
            self.broken = True
            raise Unavailable(f"the connection to {self.where} is closed") from exc

    def rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (psycopg's ``%s`` placeholders); its rows."""
        with self._guarded():
            cur = self.raw.execute(sql.encode("utf-8") if not parameters else sql, parameters)
            return cur.fetchall() if cur.description is not None else []

    def listen(self, channel: str) -> None:
        with self._guarded():
            self.raw.execute(f'LISTEN "{channel}"'.encode())

    def wait(self, timeout_s: float) -> list[str]:
        """The payloads of notifications that arrive within ``timeout_s`` (returns at the
        first one; ``[]`` when none came)."""
        with self._guarded():
            return [n.payload for n in self.raw.notifies(timeout=timeout_s, stop_after=1)]

    def close(self) -> None:
        self.broken = True
        with contextlib.suppress(Exception):
            self.raw.close()
