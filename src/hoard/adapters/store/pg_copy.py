"""Copying one process's state folder into a PostgreSQL store (``hoard store migrate``).

Each component a single-process hoard keeps in a SQLite file of its state folder is copied
table by table, in the order its migrations create them (so a row's references exist before
it), each table in the order its rows were added, every id kept: ``rowid`` and the identity
columns are copied as they are, and each identity's sequence is then moved past the copied
ids. Everything happens in one PostgreSQL transaction, under each component's writer lock:
a failure, or a preserved revision whose bytes no longer hash to its recorded SHA-256,
leaves the store as it was. The source files are read in one transaction each (a hoard
still running on them waits), after being brought to this hoard's schema as any start of
this hoard would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hoard.adapters.callers_store import add_callers
from hoard.adapters.store.pg import PgConn, PostgresServer
from hoard.adapters.store.sql import SqlConn, lock_key, statements
from hoard.adapters.store.sqlite_db import SqliteDatabase
from hoard.adapters.tokens import TokenStore
from hoard.core.errors import InvalidArgument, IoError, NotFound
from hoard.core.policy import TokenEntry

#: Each component a single-process state keeps in a SQLite file, by that file's name.
SQLITE_FILES: tuple[tuple[str, str], ...] = (
    ("ledger", "ledger.db"),
    ("sessions", "web.db"),
    ("oauth", "oauth.db"),
)

#: The tables whose rows hold bytes with their SHA-256: (table, id column), verified after
#: the copy.
HASHED_TABLES: tuple[tuple[str, str], ...] = (
    ("revisions", "revision_id"),
    ("kept_bytes", "sha256"),
)

#: Rows copied between two progress reports.
PROGRESS_EVERY = 2000

_CREATE_TABLE = re.compile(r"^\s*CREATE TABLE (?:IF NOT EXISTS )?(\w+)", re.I)

Progress = Callable[[str, int, int], None]
"""``(table, rows copied, rows in all)``, called as a table's copy goes."""


@dataclass(frozen=True, slots=True)
class Source:
    """One component's SQLite file and the migrations of its schema."""

    component: str
    path: Path
    migrations: tuple[str, ...]

    @property
    def tables(self) -> list[str]:
        """Its tables, in the order its migrations create them."""
        return [
            m.group(1)
            for script in self.migrations
            for stmt in statements(script)
            if (m := _CREATE_TABLE.match(stmt))
        ]


@dataclass(frozen=True, slots=True)
class CopiedTable:
    component: str
    table: str
    rows: int


@dataclass(frozen=True, slots=True)
class CopyReport:
    tables: list[CopiedTable]
    verified: dict[str, int]
    """How many rows of each hashed table were checked against their SHA-256."""


def state_sources(
    state_dir: Path, registered: dict[str, tuple[str, ...]], tokens: Path | None
) -> tuple[list[Source], list[str]]:
    """The files of a state folder to copy (their components are ``registered`` in the
    store), and what it holds that stays behind, and why."""
    sources: list[Source] = []
    skipped: list[str] = []
    for component, file_name in SQLITE_FILES:
        path = state_dir / file_name
        if not path.is_file():
            if component == "ledger":
                raise NotFound(f"{path}: no ledger here; --from names a hoard state folder")
            continue
        if component in registered:
            sources.append(Source(component, path, registered[component]))
        else:
            skipped.append(f"{file_name}: this hoard keeps {component} in the state folder")
    return sources, skipped


def callers_to_copy(tokens: Path | None) -> list[TokenEntry]:
    """The callers of a tokens file (none when there is no file), to copy with the state."""
    if tokens is None or not tokens.is_file():
        return []
    return TokenStore(tokens, strict=True).entries()


def copy_into(
    server: PostgresServer,
    sources: Sequence[Source],
    progress: Progress,
    callers: Sequence[TokenEntry] = (),
) -> CopyReport:
    """Copy every source (and the callers of a tokens file) into the store in one
    transaction (see the module's docstring)."""
    copied: list[CopiedTable] = []
    components = [s.component for s in sources] + (["callers"] if callers else [])
    with server.connection() as pg, pg.transaction():
        for component in components:
            pg.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(f"writer:{component}"),))
        _refuse_rows_already_there(pg, server.where, sources)
        for source in sources:
            copied += _copy_source(pg, source, progress)
        if callers:
            _refuse_callers_already_there(pg, server.where)
            added = add_callers(PgConn(pg), callers)
            copied.append(CopiedTable("callers", "callers", added))
            progress("callers", added, len(callers))
        verified = _verify_hashes(pg, [t for s in sources for t in s.tables])
    return CopyReport(copied, verified)


def _refuse_callers_already_there(pg: Any, where: str) -> None:
    row = pg.execute("SELECT count(*) FROM callers").fetchone()
    if row and row[0]:
        raise InvalidArgument(
            f"the store at {where} already holds {row[0]} caller(s): `hoard store migrate` "
            "copies a tokens file only into a store with no callers yet; nothing was copied"
        )


def _refuse_rows_already_there(pg: Any, where: str, sources: Sequence[Source]) -> None:
    for source in sources:
        for table in source.tables:
            row = pg.execute(f"SELECT count(*) FROM {table}").fetchone()
            if row and row[0]:
                raise InvalidArgument(
                    f"the store at {where} already holds {row[0]} row(s) of {table} "
                    f"({source.component}): `hoard store migrate` copies a state folder only "
                    "into a store with no shared state yet, so that no id or history is merged "
                    "or overwritten; nothing was copied"
                )


def _copy_source(pg: Any, source: Source, progress: Progress) -> list[CopiedTable]:
    db = SqliteDatabase(source.path, source.migrations)
    try:
        with db.transaction() as src:
            return [
                CopiedTable(source.component, table, _copy_table(pg, src, table, progress))
                for table in source.tables
            ]
    finally:
        db.close()


def _pg_columns(pg: Any, table: str) -> dict[str, tuple[str, bool]]:
    """``column: (data type, is an identity)`` of a table of the store."""
    rows = pg.execute(
        "SELECT column_name, data_type, is_identity FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = %s",
        (table,),
    ).fetchall()
    return {str(name): (str(kind), is_identity == "YES") for name, kind, is_identity in rows}


def _copy_table(pg: Any, src: SqlConn, table: str, progress: Progress) -> int:
    names = [str(r[1]) for r in src.execute(f"PRAGMA table_info({table})").fetchall()]
    target = _pg_columns(pg, table)
    missing = [n for n in [*names, "rowid"] if n not in target]
    if missing:
        raise IoError(
            f"the store's {table} has no column {', '.join(missing)}: run `hoard store init` "
            "with this hoard; nothing was copied"
        )
    binary = [target[n][0] == "bytea" for n in names]
    total = int(src.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    done = 0
    progress(table, done, total)
    columns = ", ".join([*names, "rowid"])
    rows = src.execute(f"SELECT {', '.join(names)}, rowid FROM {table} ORDER BY rowid")
    with pg.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(
                [
                    v.encode("utf-8") if is_bytes and isinstance(v, str) else v
                    for v, is_bytes in zip(row, [*binary, False], strict=True)
                ]
            )
            done += 1
            if done % PROGRESS_EVERY == 0:
                progress(table, done, total)
    if done % PROGRESS_EVERY:
        progress(table, done, total)
    for column, (_, identity) in target.items():
        if identity:  # the next id continues after the copied ones
            pg.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), coalesce(max({column}), 0) + 1, "
                f"false) FROM {table}",
                (table, column),
            )
    return done


def _verify_hashes(pg: Any, tables: list[str]) -> dict[str, int]:
    """Every copied row of a hashed table whose bytes hash to its recorded SHA-256, counted;
    the first rows that do not, refused."""
    verified: dict[str, int] = {}
    for table, id_column in HASHED_TABLES:
        if table not in tables:
            continue
        bad = pg.execute(
            f"SELECT {id_column} FROM {table} "
            "WHERE encode(sha256(content), 'hex') <> sha256 ORDER BY rowid LIMIT 5"
        ).fetchall()
        if bad:
            ids = ", ".join(str(r[0]) for r in bad)
            raise IoError(
                f"{table} {ids}: the bytes do not hash to the recorded SHA-256 (the source "
                "ledger is damaged); nothing was copied"
            )
        verified[table] = int(pg.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    return verified
