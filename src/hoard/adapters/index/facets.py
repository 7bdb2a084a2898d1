"""Browsing facets from the index: tags with their counts, the notes under a tag, the most
recently changed notes. Cheap SQL over the ``notes`` table (``fm_json`` holds the parsed
frontmatter)."""

from __future__ import annotations

import sqlite3
from typing import Any

from hoard.adapters.index.graph import resolve_many
from hoard.core.filters import field_key
from hoard.core.links import link_key


def tag_counts(conn: sqlite3.Connection, limit: int = 500) -> list[tuple[str, int]]:
    """Each tag, in frontmatter or inline, with the number of notes that carry it."""
    rows = conn.execute(
        "SELECT min(tag), count(*) FROM note_tags GROUP BY tag_key "
        "ORDER BY count(*) DESC, min(tag) LIMIT ?",
        (limit,),
    ).fetchall()
    return [(str(t), int(n)) for t, n in rows]


def notes_tagged(conn: sqlite3.Connection, tag: str, limit: int = 500) -> list[tuple[str, str]]:
    """The notes carrying ``tag`` (in frontmatter or inline, in any case), by path."""
    rows = conn.execute(
        "SELECT n.path, n.title FROM note_tags t JOIN notes n ON n.id = t.note "
        "WHERE t.tag_key = ? ORDER BY n.path LIMIT ?",
        (field_key(tag), limit),
    ).fetchall()
    return [(str(p), str(t)) for p, t in rows]


def recent_notes(conn: sqlite3.Connection, limit: int = 30) -> list[tuple[str, str, int]]:
    """``(path, title, mtime_ns)``, newest first."""
    rows = conn.execute(
        "SELECT path, title, mtime_ns FROM notes ORDER BY mtime_ns DESC LIMIT ?", (limit,)
    ).fetchall()
    return [(str(p), str(t), int(m)) for p, t, m in rows]


def resolve_target(conn: sqlite3.Connection, target: str, source: str) -> str | None:
    """The note a wikilink target names, seen from ``source`` (``""``: the vault root)."""
    key = link_key(target)
    return resolve_many(conn, [(key, source)]).get((key, source))


def notes_changed_between(
    conn: sqlite3.Connection,
    after_ns: int,
    before_ns: int | None,
    folder: str | None,
    limit: int,
) -> list[tuple[str, int, str, int]]:
    """``(path, size, revision, mtime_ns)`` of notes whose file changed after ``after_ns``
    (and before ``before_ns``), below ``folder``, newest first (the ``notes_mtime`` index
    walked backwards)."""
    rows = _changed(conn, "path, size, revision, mtime_ns", after_ns, before_ns, folder, limit)
    return [(str(p), int(z), str(r), int(m)) for p, z, r, m in rows]


def titled_changes_between(
    conn: sqlite3.Connection,
    after_ns: int,
    before_ns: int | None,
    folder: str | None,
    limit: int,
) -> list[tuple[str, int, str, int, str]]:
    """:func:`notes_changed_between` with each note's indexed title as a fifth field, read
    in the same query."""
    rows = _changed(
        conn, "path, size, revision, mtime_ns, title", after_ns, before_ns, folder, limit
    )
    return [(str(p), int(z), str(r), int(m), str(t)) for p, z, r, m, t in rows]


def _changed(
    conn: sqlite3.Connection,
    columns: str,
    after_ns: int,
    before_ns: int | None,
    folder: str | None,
    limit: int,
) -> list[Any]:
    sql = f"SELECT {columns} FROM notes WHERE mtime_ns > ?"
    args: list[object] = [after_ns]
    if before_ns is not None:
        sql += " AND mtime_ns < ?"
        args.append(before_ns)
    if folder:
        prefix = folder.rstrip("/") + "/"
        sql += " AND substr(path, 1, ?) = ?"
        args += [len(prefix), prefix]
    sql += " ORDER BY mtime_ns DESC LIMIT ?"
    args.append(limit)
    return conn.execute(sql, args).fetchall()


def titles_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """The indexed title of each of ``paths`` that the index holds."""
    out: dict[str, str] = {}
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        for p, t in conn.execute(f"SELECT path, title FROM notes WHERE path IN ({marks})", chunk):
            out[str(p)] = str(t)
    return out
