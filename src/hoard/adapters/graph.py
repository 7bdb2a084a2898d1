"""The link graph over the index: resolving wikilinks, backlinks, broken links."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hoard.core.links import note_keys, pick_target
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


def resolve(conn: sqlite3.Connection, target_key: str, src_path: str) -> str | None:
    src_folder = folder_of(src_path)
    candidates = [target_key]
    if src_folder:
        candidates.append(f"{src_folder.lower()}/{target_key}")
    path_hits = [
        r[0]
        for key in candidates
        for r in conn.execute("SELECT path FROM notes WHERE path_key = ?", (key,))
    ]
    stem = target_key.rpartition("/")[2]
    stem_hits = [r[0] for r in conn.execute("SELECT path FROM notes WHERE stem_key = ?", (stem,))]
    return pick_target(target_key, src_folder, path_hits, stem_hits)


def outgoing(conn: sqlite3.Connection, note_id: int, src_path: str) -> list[Outgoing]:
    rows = conn.execute(
        "SELECT target, target_key, heading, alias, embed, line FROM links WHERE src = ? "
        "ORDER BY line, rowid",
        (note_id,),
    ).fetchall()
    cache: dict[str, str | None] = {}
    out = []
    for target, key, heading, alias, embed, line in rows:
        if key not in cache:
            cache[key] = resolve(conn, key, src_path)
        hit = cache[key]
        out.append(Outgoing(target, hit, hit is None, heading, alias, bool(embed), line))
    return out


def backlinks(conn: sqlite3.Connection, path: str) -> list[str]:
    """Notes with a link that resolves to ``path``. Every such link ends in the note's stem
    (plain, path-style or folder-relative), so the stem key finds all candidates."""
    _, skey = note_keys(path)
    rows = conn.execute(
        "SELECT DISTINCT n.path, l.target_key FROM links l JOIN notes n ON n.id = l.src "
        "WHERE l.stem_key = ?",
        (skey,),
    ).fetchall()
    found: set[str] = set()
    for src, key in rows:
        if src not in found and resolve(conn, key, src) == path:
            found.add(src)
    return sorted(found)


def broken_links(conn: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """Every unresolved link in the vault: ``(source path, target, line)``."""
    by_path: dict[str, list[str]] = {}
    by_stem: dict[str, list[str]] = {}
    for path, pkey, skey in conn.execute("SELECT path, path_key, stem_key FROM notes"):
        by_path.setdefault(pkey, []).append(path)
        by_stem.setdefault(skey, []).append(path)
    out = []
    for src, target, key, line in conn.execute(
        "SELECT n.path, l.target, l.target_key, l.line FROM links l JOIN notes n ON n.id = l.src "
        "ORDER BY n.path, l.line"
    ):
        folder = folder_of(src)
        hits = list(by_path.get(key, ()))
        if folder:
            hits += by_path.get(f"{folder.lower()}/{key}", [])
        if pick_target(key, folder, hits, by_stem.get(key.rpartition("/")[2], [])) is None:
            out.append((src, target, line))
    return out
