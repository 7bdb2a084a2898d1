"""The callers of a vault's replicas: what the tokens file holds, as the ``callers`` table of
their shared store (component ``callers``), so a token added or revoked on any replica, or by
``hoard token`` run against the store, takes effect on every replica at its next request.

Rows hold what an entry of the tokens file holds (the token's SHA-256 digest, never the
token). Every change also bumps the one row of ``callers_version`` in its transaction; each
lookup first reads that number (one small query) and reloads the table only when it moved,
so no replica answers from a list older than the request. When the store cannot be reached,
the last list read stays in use (nothing can be revoked while the store is down) and
:meth:`StoreCallers.status` names the problem, which a strict server answers with 503.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from hoard.adapters.store.sql import Database, SqlConn
from hoard.adapters.tokens import holder_of, new_entry
from hoard.core.errors import Exists, NotFound, Unavailable
from hoard.core.policy import Caller, TokenEntry

log = logging.getLogger("hoard.tokens")

MIGRATIONS: tuple[str, ...] = (
    # 1: the callers, and the number every change of them bumps
    """
    CREATE TABLE callers(
      name TEXT PRIMARY KEY,
      sha256 TEXT NOT NULL,
      scopes TEXT NOT NULL,
      write_mode TEXT NOT NULL,
      confirm_own INTEGER NOT NULL DEFAULT 0,
      read_globs TEXT NOT NULL DEFAULT '[]',
      write_globs TEXT NOT NULL DEFAULT '[]',
      created_at REAL NOT NULL
    );
    CREATE TABLE callers_version(
      id INTEGER PRIMARY KEY,
      version INTEGER NOT NULL
    );
    INSERT INTO callers_version(id, version) VALUES(1, 0)
    """,
)
"""Each step from one schema version to the next."""

TABLES = ("callers",)
"""The table a copy of a tokens file fills (``callers_version`` only counts changes)."""

_COLUMNS = "name, sha256, scopes, write_mode, confirm_own, read_globs, write_globs"


def _entry(row: Any) -> TokenEntry:
    return TokenEntry(
        name=str(row[0]),
        sha256=str(row[1]),
        scopes=tuple(str(row[2]).split()),
        write_mode=str(row[3]),
        confirm_own=bool(row[4]),
        read_globs=tuple(json.loads(row[5])),
        write_globs=tuple(json.loads(row[6])),
    )


def _insert(conn: SqlConn, entry: TokenEntry) -> bool:
    """Add one entry; ``False`` when its name is taken."""
    rows = conn.execute(
        f"INSERT INTO callers({_COLUMNS}, created_at) VALUES(?,?,?,?,?,?,?,?) "
        "ON CONFLICT(name) DO NOTHING RETURNING name",
        (
            entry.name,
            entry.sha256,
            " ".join(entry.scopes),
            entry.write_mode,
            int(entry.confirm_own),
            json.dumps(list(entry.read_globs)),
            json.dumps(list(entry.write_globs)),
            time.time(),
        ),
    ).fetchall()
    return bool(rows)


def _bump(conn: SqlConn) -> None:
    conn.execute("UPDATE callers_version SET version = version + 1 WHERE id = 1")


class StoreCallers:
    """The :class:`~hoard.app.callers.CallerFile` of a shared store (see the module)."""

    def __init__(
        self, db: Database, strict: bool = False, on_close: Callable[[], None] | None = None
    ) -> None:
        self.db = db
        self.strict = strict
        self._on_close = on_close
        self._lock = threading.Lock()
        self._version: int | None = None
        self._entries: list[TokenEntry] = []
        self._problem: str | None = None

    @property
    def where(self) -> str:
        """The store's URL, without its password (for messages)."""
        return self.db.where

    def close(self) -> None:
        self.db.close()
        if self._on_close is not None:
            self._on_close()

    def _current(self) -> list[TokenEntry]:
        """The callers now: reloaded when ``callers_version`` moved since the last look (a
        list read after the version is never older than it); the last list read while the
        store is unreachable."""
        try:
            with self.db.read() as conn:
                version = int(conn.execute("SELECT version FROM callers_version").fetchone()[0])
                with self._lock:
                    known = self._version
                rows = None
                if version != known:
                    rows = conn.execute(f"SELECT {_COLUMNS} FROM callers ORDER BY rowid").fetchall()
        except Unavailable as exc:
            with self._lock:
                if self._problem is None:
                    log.error("callers: %s (the last list read is kept)", exc)
                self._problem = str(exc)
                return self._entries
        with self._lock:
            self._problem = None
            if rows is not None:
                self._version, self._entries = version, [_entry(r) for r in rows]
            return self._entries

    def status(self) -> str | None:
        """In strict mode, why every request must be refused (the store is unreachable).
        Otherwise nothing is asked of the store here: the request's own lookup
        (:meth:`verify`) reads it."""
        if not self.strict:
            return None
        self._current()
        return self._problem

    def verify(self, token: str) -> Caller | None:
        entries = self._current()
        if self.strict and self._problem is not None:
            return None
        return holder_of(entries, token)

    def entries(self) -> list[TokenEntry]:
        return list(self._current())

    def find(self, name: str) -> TokenEntry | None:
        return next((e for e in self._current() if e.name == name), None)

    def add(
        self,
        name: str,
        scopes: str,
        write_mode: str,
        confirm_own: bool = False,
        read: str = "",
        write: str = "",
    ) -> tuple[TokenEntry, str]:
        entry, token = new_entry(name, scopes, write_mode, confirm_own, read, write)
        with self.db.transaction() as conn:
            if not _insert(conn, entry):
                raise Exists(f"caller {name!r} already has a token; revoke it first", None)
            _bump(conn)
        return entry, token

    def revoke(self, name: str) -> None:
        with self.db.transaction() as conn:
            gone = conn.execute("DELETE FROM callers WHERE name = ?", (name,)).rowcount
            if not gone:
                raise NotFound(f"no caller named {name!r}", name=name)
            _bump(conn)


def export_callers(db: Database) -> list[TokenEntry]:
    """Every caller of the store, in the order they were added."""
    with db.read() as conn:
        return [
            _entry(r)
            for r in conn.execute(f"SELECT {_COLUMNS} FROM callers ORDER BY rowid").fetchall()
        ]


def import_callers(db: Database, entries: Iterable[TokenEntry]) -> int:
    """Add callers read elsewhere (a tokens file: ``TokenStore(path).entries()``) in one
    transaction; one whose name the store has already is left as it is. How many were
    added."""
    with db.transaction() as conn:
        return add_callers(conn, entries)


def add_callers(conn: SqlConn, entries: Iterable[TokenEntry]) -> int:
    """:func:`import_callers` inside a transaction the caller holds (a whole state folder
    copied into a store at once)."""
    added = sum(_insert(conn, entry) for entry in entries)
    if added:
        _bump(conn)
    return added
