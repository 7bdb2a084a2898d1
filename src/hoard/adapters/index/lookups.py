"""Small questions the use-cases ask the index, one function per statement: is a note
indexed, which of some paths are, which notes share a file name, what a note's title,
folder and opening text are. Each takes a reader connection (:meth:`Index.reader`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Reader = Callable[[], sqlite3.Connection]
"""Where a use-case gets an index connection from (:meth:`Index.reader`), handed to the
functions here without being used in between."""


def _marks(n: int) -> str:
    return ",".join("?" * n)


def is_indexed(conn: sqlite3.Connection, path: str) -> bool:
    """Is there a note at ``path`` in the index?"""
    return conn.execute("SELECT 1 FROM notes WHERE path=?", (path,)).fetchone() is not None


def indexed_among(conn: sqlite3.Connection, paths: list[str]) -> set[str]:
    """Which of ``paths`` are notes in the index (one query)."""
    if not paths:
        return set()
    sql = f"SELECT path FROM notes WHERE path IN ({_marks(len(paths))})"
    return {r[0] for r in conn.execute(sql, paths)}


def titles_and_folders(conn: sqlite3.Connection, paths: list[str]) -> dict[str, tuple[str, str]]:
    """``path -> (title, folder)`` for those of ``paths`` in the index."""
    if not paths:
        return {}
    sql = f"SELECT path, title, folder FROM notes WHERE path IN ({_marks(len(paths))})"
    return {p: (title, folder) for p, title, folder in conn.execute(sql, paths)}


def paths_with_stem(conn: sqlite3.Connection, stem_key: str) -> list[str]:
    """Every note whose file name folds to ``stem_key``."""
    rows = conn.execute("SELECT path FROM notes WHERE stem_key = ?", (stem_key,))
    return [p for (p,) in rows]


def others_with_stem(
    conn: sqlite3.Connection, stem_key: str, path: str, limit: int = 200
) -> list[str]:
    """Notes other than ``path`` whose file name folds to ``stem_key``, by path, at most
    ``limit``."""
    rows = conn.execute(
        "SELECT path FROM notes WHERE stem_key = ? AND path != ? ORDER BY path LIMIT ?",
        (stem_key, path, limit),
    )
    return [r[0] for r in rows]


def opening_texts(conn: sqlite3.Connection, paths: list[str], max_chars: int) -> dict[str, str]:
    """Title and the first ``max_chars`` characters of the body of each note in ``paths``
    that is indexed (``"title\\nbody"``)."""
    if not paths:
        return {}
    rows = conn.execute(
        f"SELECT n.path, f.title, substr(f.body, 1, {int(max_chars)}) "
        f"FROM notes n JOIN notes_fts f ON f.rowid = n.id WHERE n.path IN ({_marks(len(paths))})",
        paths,
    )
    return {path: f"{title}\n{body}" for path, title, body in rows}
