"""The small SQL interface every shared-state table is written against.

Statements are written once, in the SQL both engines accept (``?`` placeholders,
``INSERT ... ON CONFLICT DO NOTHING``, ``RETURNING``); :mod:`hoard.adapters.store.dialect`
turns them into PostgreSQL's where it must. A :class:`Database` hands out a connection for
one write transaction (writers are serialised, as SQLite's ``BEGIN IMMEDIATE`` does) or for
reading; inside a thread's own transaction, reads see its uncommitted rows.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Iterator
from typing import Any, Literal, Protocol

Engine = Literal["sqlite", "postgres"]


class SqlCursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class SqlConn(Protocol):
    def execute(self, sql: str, parameters: Any = (), /) -> SqlCursor: ...

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> object: ...


class Database(Protocol):
    """One database of shared state (see the module's docstring)."""

    @property
    def engine(self) -> Engine: ...

    @property
    def where(self) -> str:
        """Where it is, for messages (a file's path, or a URL without its password)."""
        ...

    @property
    def schema_version(self) -> int: ...

    def transaction(self, durable: bool = True) -> contextlib.AbstractContextManager[SqlConn]:
        """One write transaction; ``durable=False`` may commit without waiting for the
        disk (only for rows that can be rebuilt after a power loss)."""
        ...

    def read(self) -> contextlib.AbstractContextManager[SqlConn]: ...

    def close(self) -> None: ...


def statements(script: str) -> list[str]:
    """A migration script's statements (no statement holds a ``;`` of its own)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def lock_key(name: str) -> int:
    """A 64-bit advisory lock key for a name (a component, a job, a note's path)."""
    digest = hashlib.sha256(b"hoard:" + name.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)
