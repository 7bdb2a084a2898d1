"""The link graph over the index: resolving wikilinks, backlinks, broken links."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hoard.adapters.index.deadline import interrupting, is_interrupt
from hoard.core.choices import LinkResolution
from hoard.core.links import Resolution, name_key, note_keys, resolve_key
from hoard.core.paths import folder_of


@dataclass(frozen=True, slots=True)
class Outgoing:
    target: str
    resolved_path: str | None
    broken: bool
    heading: str | None
    alias: str | None
    embed: bool
    line: int
    resolved_by: LinkResolution | None = None
    ambiguous: tuple[str, ...] = ()


_CHUNK = 500  # bound parameters per IN (...) query


def _lookup(conn: sqlite3.Connection, column: str, keys: set[str]) -> dict[str, list[str]]:
    """Note paths by ``path_key`` or ``stem_key``, for many keys in a few queries."""
    out: dict[str, list[str]] = {}
    ordered = sorted(keys)
    for i in range(0, len(ordered), _CHUNK):
        chunk = ordered[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        # column is one of two fixed names; the keys are bound parameters
        sql = f"SELECT path, {column} FROM notes WHERE {column} IN ({marks})"
        for path, key in conn.execute(sql, chunk):
            out.setdefault(key, []).append(path)
    return out


def _aliases(conn: sqlite3.Connection, keys: set[str]) -> dict[str, list[str]]:
    """Note paths by alias key."""
    out: dict[str, list[str]] = {}
    ordered = sorted(keys)
    for i in range(0, len(ordered), _CHUNK):
        chunk = ordered[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = (
            "SELECT n.path, k.name_key FROM note_names k JOIN notes n ON n.id = k.note "
            f"WHERE k.name_key IN ({marks})"
        )
        for path, key in conn.execute(sql, chunk):
            out.setdefault(key, []).append(path)
    return out


def resolve_links(
    conn: sqlite3.Connection, links: list[tuple[str, str]]
) -> dict[tuple[str, str], Resolution]:
    """Resolve ``(target_key, source path)`` pairs, with a few batched lookups instead of
    queries per link. Same rules as :func:`resolve_key`."""
    path_keys: set[str] = set()
    stem_keys: set[str] = set()
    for key, src in links:
        folder = folder_of(src)
        path_keys.add(key)
        if folder:
            path_keys.add(f"{folder.lower()}/{key}")
        stem_keys.add(key.rpartition("/")[2])
    by_path = _lookup(conn, "path_key", path_keys)
    by_stem = _lookup(conn, "stem_key", stem_keys)
    unresolved = {key for key, src in links if _pick(key, src, by_path, by_stem).path is None}
    names = _aliases(conn, {name_key(k) for k in unresolved}) if unresolved else None
    return {(key, src): _pick(key, src, by_path, by_stem, names) for key, src in links}


def resolve_many(
    conn: sqlite3.Connection, links: list[tuple[str, str]]
) -> dict[tuple[str, str], str | None]:
    """The note path each ``(target_key, source path)`` resolves to (None: broken)."""
    return {k: r.path for k, r in resolve_links(conn, links).items()}


def _pick(
    key: str,
    src: str,
    by_path: dict[str, list[str]],
    by_stem: dict[str, list[str]],
    aliases: dict[str, list[str]] | None = None,
) -> Resolution:
    """:func:`resolve_key` for one link, given candidate notes by path key, stem key and
    (when given) alias key."""
    folder = folder_of(src)
    hits = list(by_path.get(key, ()))
    if folder:
        hits += by_path.get(f"{folder.lower()}/{key}", [])
    by_alias = aliases.get(name_key(key), []) if aliases else []
    return resolve_key(key, folder, hits, by_stem.get(key.rpartition("/")[2], []), by_alias)


def outgoing(
    conn: sqlite3.Connection, note_id: int, src_path: str, limit: int = -1, offset: int = 0
) -> list[Outgoing]:
    """The note's links in order, ``limit`` of them (``-1``: all) from ``offset`` on."""
    rows = conn.execute(
        "SELECT target, target_key, heading, alias, embed, line FROM links WHERE src = ? "
        "ORDER BY line, rowid LIMIT ? OFFSET ?",
        (note_id, limit, offset),
    ).fetchall()
    hits = resolve_links(conn, [(key, src_path) for _, key, *_ in rows])
    out = []
    for target, key, heading, alias, embed, line in rows:
        r = hits[(key, src_path)]
        out.append(
            Outgoing(
                target=target,
                resolved_path=r.path,
                broken=r.path is None,
                heading=heading,
                alias=alias,
                embed=bool(embed),
                line=line,
                resolved_by=r.by,
                ambiguous=r.ambiguous,
            )
        )
    return out


def backlinks(conn: sqlite3.Connection, path: str) -> list[str]:
    """Notes with a link that resolves to ``path``. Every such link ends in the note's stem
    (plain, path-style or folder-relative) or names one of its aliases, so the stem key
    and the note's alias keys find all candidates."""
    _, skey = note_keys(path)
    rows = conn.execute(
        "SELECT DISTINCT n.path, l.target_key FROM links l JOIN notes n ON n.id = l.src "
        "WHERE l.stem_key = ? OR l.name_key IN (SELECT k.name_key FROM note_names k "
        "JOIN notes t ON t.id = k.note WHERE t.path = ?)",
        (skey, path),
    ).fetchall()
    hits = resolve_many(conn, [(key, src) for src, key in rows])
    return sorted({src for src, key in rows if hits[(key, src)] == path})


def broken_links(conn: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """Every unresolved link in the vault: ``(source path, target, line)``."""
    by_path: dict[str, list[str]] = {}
    by_stem: dict[str, list[str]] = {}
    for path, pkey, skey in conn.execute("SELECT path, path_key, stem_key FROM notes"):
        by_path.setdefault(pkey, []).append(path)
        by_stem.setdefault(skey, []).append(path)
    aliases: dict[str, list[str]] = {}
    for path, nkey in conn.execute(
        "SELECT n.path, k.name_key FROM note_names k JOIN notes n ON n.id = k.note"
    ):
        aliases.setdefault(nkey, []).append(path)
    out = []
    for src, target, key, line in conn.execute(
        "SELECT n.path, l.target, l.target_key, l.line FROM links l JOIN notes n ON n.id = l.src "
        "ORDER BY n.path, l.line"
    ):
        if _pick(key, src, by_path, by_stem, aliases).path is None:
            out.append((src, target, line))
    return out


def note_id(conn: sqlite3.Connection, rel: str) -> int | None:
    """The index's row id of the note at ``rel``, or ``None`` when it is not indexed."""
    row = conn.execute("SELECT id FROM notes WHERE path = ?", (rel,)).fetchone()
    return None if row is None else int(row[0])


@dataclass(frozen=True, slots=True)
class LinkPage:
    outgoing: list[Outgoing]
    backlinks: list[str]
    timed_out: bool = False
    """The time budget stopped the reads: the lists hold what was read before it did."""


def link_page(
    conn: sqlite3.Connection,
    row_id: int,
    rel: str,
    limit: int,
    offset: int,
    deadline: float | None,
) -> LinkPage:
    """``limit`` outgoing links from ``offset`` on and every backlink, within ``deadline``
    (``time.monotonic()``): past it, SQLite stops the read and the page keeps what it has."""
    out: list[Outgoing] = []
    with interrupting(conn, deadline):
        try:
            out = outgoing(conn, row_id, rel, limit, offset)
            return LinkPage(out, backlinks(conn, rel))
        except sqlite3.OperationalError as exc:
            if not is_interrupt(exc):
                raise
    return LinkPage(out, [], timed_out=True)
