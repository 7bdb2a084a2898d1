"""Rows of the index: how one note becomes its ``notes``, ``notes_fts``, ``words``,
``titles`` and ``links`` rows, and how they go again. Used by
:class:`hoard.adapters.index.store.Index` inside its write transactions."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from hoard.adapters.fs.vault import FileStat, Vault
from hoard.core.config import Config
from hoard.core.errors import HoardError
from hoard.core.filters import field_key, updated_key
from hoard.core.fold import alt_text
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter
from hoard.core.globs import matches
from hoard.core.links import link_key, name_key, note_keys
from hoard.core.note import NoteDoc, parse_note
from hoard.core.paths import folder_of
from hoard.core.segment import glued_text, segmented_text

log = logging.getLogger("hoard.index")

FM_OBSERVATION_BYTES = 16 * 1024


def rank_multiplier(path: str, weights: dict[str, float]) -> float:
    for pattern, mult in weights.items():
        if matches(path, pattern):
            return mult
    return 1.0


def observe_frontmatter(doc: NoteDoc, keys: tuple[str, ...]) -> str | None:
    """The bounded observation shown with search results: allowlisted keys of the first
    16 KiB of frontmatter, as declared (JSON-able scalars and lists of them only)."""
    if doc.frontmatter is None or len(doc.frontmatter_text) > FM_OBSERVATION_BYTES:
        return None
    out: dict[str, Any] = {}
    for key in keys:
        if key in doc.frontmatter:
            out[key] = jsonable(doc.frontmatter[key])
    return json.dumps(out, ensure_ascii=False)


def jsonable(v: Any, depth: int = 0) -> Any:
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list) and depth < 2:
        return [jsonable(x, depth + 1) for x in v[:50]]
    if isinstance(v, dict) and depth < 2:
        return {str(k): jsonable(x, depth + 1) for k, x in list(v.items())[:50]}
    return str(v)


def filter_fields(fm: dict[str, Any] | None) -> tuple[str | None, str | None, str | None]:
    """The frontmatter's ``type`` and ``status`` keys and its ``updated`` date."""
    fm = fm or {}

    def key(name: str) -> str | None:
        value = fm.get(name)
        return field_key(str(value)) if isinstance(value, str | int) and str(value) else None

    return key("type"), key("status"), updated_key(fm.get("updated"))


def delete_note(conn: sqlite3.Connection, path: str) -> None:
    row = conn.execute("SELECT id FROM notes WHERE path=?", (path,)).fetchone()
    if row is None:
        return
    old = conn.execute(
        "SELECT title, body, tags FROM notes_fts WHERE rowid=?", (row[0],)
    ).fetchone()
    if old is not None:  # a contentless table forgets a row given its exact old text
        conn.execute(
            "INSERT INTO words(words, rowid, title, body) VALUES('delete', ?, ?, ?)",
            (row[0], old[0], old[1]),
        )
        conn.execute(
            "INSERT INTO titles(titles, rowid, title, tags) VALUES('delete', ?, ?, ?)",
            (row[0], old[0], old[2]),
        )
    conn.execute("DELETE FROM notes_fts WHERE rowid=?", (row[0],))
    conn.execute("DELETE FROM links WHERE src=?", (row[0],))
    conn.execute("DELETE FROM note_tags WHERE note=?", (row[0],))
    conn.execute("DELETE FROM note_names WHERE note=?", (row[0],))
    conn.execute("DELETE FROM notes WHERE id=?", (row[0],))


@dataclass(slots=True)
class PreparedNote:
    """One note read and parsed, ready to insert: what :func:`prepare_note` does off the
    database (in a worker process during a full rebuild), and :func:`insert_prepared` on it."""

    path: str
    mtime_ns: int
    size: int
    revision: str
    title: str
    rank_mult: float
    fm_json: str | None
    problems: str | None
    fts: tuple[str, str, str, str, str, str, str, str]
    """``notes_fts`` columns: path, title (with aliases), tags, body, frontmatter, alt,
    and the n-grams of space-less scripts in the title and the body (empty without them)."""
    links: list[tuple[str, str, str, str, str | None, str | None, int, int]]
    """``links`` columns after ``src``."""
    fields: tuple[str | None, str | None, str | None] = (None, None, None)
    """``type_key``, ``status_key``, ``updated``: what the search filters compare."""
    tags: list[tuple[str, str, str]] = field(default_factory=list)
    """``note_tags`` rows after ``note``: each distinct tag as written, its key and where
    the note has it (``frontmatter``, ``inline`` or ``both``)."""
    names: list[tuple[str, str]] = field(default_factory=list)
    """``note_names`` rows after ``note``: the key of each alias, which a link names the
    note by when no file name or path matches it."""


def prepare_note(vault: Vault, config: Config, fs: FileStat) -> PreparedNote | None:
    """Read and parse one note. A note that cannot be read is skipped (``None``, logged);
    one that cannot be parsed is prepared as best it can be, with its problems recorded."""
    cap = config.limits.index_max_bytes
    try:
        _, raw, size = vault.read_note(fs.path, max_bytes=cap)
    except HoardError as exc:
        log.warning("not indexed: %s: %s", fs.path, exc.message)
        return None
    doc = parse_note(fs.path, raw, config.search.title_keys)
    problems = [{"rule": p.rule, "message": p.message} for p in doc.problems]
    if size > cap:
        problems.append(
            {"rule": "index_truncated", "message": f"only the first {cap} bytes are indexed"}
        )
        doc.revision = _full_revision(vault, fs.path) or doc.revision
    title_text = "\n".join([doc.title, *doc.aliases])
    words = (title_text + " " + doc.body).split() if not _ascii(title_text, doc.body) else []
    return PreparedNote(
        path=fs.path,
        mtime_ns=fs.mtime_ns,
        size=size,
        revision=doc.revision,
        title=doc.title,
        rank_mult=rank_multiplier(fs.path, dict(config.search.folder_weights)),
        fm_json=observe_frontmatter(doc, config.search.frontmatter_keys),
        problems=json.dumps(problems) if problems else None,
        fts=(
            fs.path[:-3] if fs.path.endswith(".md") else fs.path,
            title_text,
            " ".join([*doc.tags, *doc.inline_tags]),
            doc.body,
            doc.frontmatter_text,
            " ".join(filter(None, (alt_text(words), glued_text(title_text + " " + doc.body)))),
            segmented_text(title_text) if words else "",
            segmented_text(doc.body) if words else "",
        ),
        fields=filter_fields(doc.frontmatter),
        tags=tag_rows(doc.tags, doc.inline_tags),
        names=_names(doc),
        links=[
            (
                ln.target,
                link_key(ln.target),
                link_key(ln.target).rpartition("/")[2],
                name_key(link_key(ln.target)),
                ln.heading,
                ln.alias,
                int(ln.embed),
                ln.line,
            )
            for ln in doc.links
        ],
    )


def insert_prepared(conn: sqlite3.Connection, note: PreparedNote, fresh: bool) -> None:
    """Insert a prepared note. ``fresh`` (a rebuild) leaves the ``words`` and ``titles``
    tables to be filled in one statement each at the end."""
    pkey, skey = note_keys(note.path)
    cur = conn.execute(
        "INSERT INTO notes(path, folder, path_key, stem_key, mtime_ns, size, revision, "
        "title, rank_mult, fm_json, problems, type_key, status_key, updated) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            note.path,
            folder_of(note.path),
            pkey,
            skey,
            note.mtime_ns,
            note.size,
            note.revision,
            note.title,
            note.rank_mult,
            note.fm_json,
            note.problems,
            *note.fields,
        ),
    )
    rowid = cur.lastrowid
    conn.execute(
        "INSERT INTO notes_fts(rowid, path, title, tags, body, frontmatter, alt, title_seg, "
        "body_seg) VALUES(?,?,?,?,?,?,?,?,?)",
        (rowid, *note.fts),
    )
    if not fresh:
        conn.execute(
            "INSERT INTO words(rowid, title, body) VALUES(?, ?, ?)",
            (rowid, note.fts[1], note.fts[3]),  # title with aliases, body
        )
        conn.execute(
            "INSERT INTO titles(rowid, title, tags) VALUES(?, ?, ?)",
            (rowid, note.fts[1], note.fts[2]),  # title with aliases, tags
        )
    if note.tags:
        conn.executemany(
            "INSERT INTO note_tags(note, tag, tag_key, source) VALUES(?,?,?,?)",
            [(rowid, *t) for t in note.tags],
        )
    if note.links:
        conn.executemany(
            "INSERT INTO links(src, target, target_key, stem_key, name_key, heading, alias, "
            "embed, line) VALUES(?,?,?,?,?,?,?,?,?)",
            [(rowid, *ln) for ln in note.links],
        )

    if note.names:
        conn.executemany(
            "INSERT INTO note_names(note, name_key, kind) VALUES(?,?,?)",
            [(rowid, *n) for n in note.names],
        )


def tag_rows(frontmatter: list[str], inline: list[str]) -> list[tuple[str, str, str]]:
    """``(tag, key, source)`` for each distinct tag key, spelt as it is first written (the
    frontmatter's spelling first)."""
    rows: dict[str, tuple[str, str, str]] = {}
    for source, tags in (("frontmatter", frontmatter), ("inline", inline)):
        for tag in tags:
            key = field_key(tag)
            if key not in rows:
                rows[key] = (tag, key, source)
            elif rows[key][2] != source:
                rows[key] = (rows[key][0], key, "both")
    return list(rows.values())


def _names(doc: NoteDoc) -> list[tuple[str, str]]:
    """``(key, kind)`` of each distinct alias: what a link may name the note by."""
    return [(key, "alias") for key in dict.fromkeys(name_key(a) for a in doc.aliases) if key]


def upsert_note(
    conn: sqlite3.Connection, vault: Vault, config: Config, fs: FileStat, fresh: bool
) -> bool:
    """Index one note (False: it could not be read, and was skipped)."""
    note = prepare_note(vault, config, fs)
    if note is None:
        return False
    insert_prepared(conn, note, fresh)
    return True


def _ascii(*texts: str) -> bool:
    return all(t.isascii() for t in texts)


def _full_revision(vault: Vault, path: str) -> str | None:

    try:
        _, data, _ = vault.read_note(path)
    except HoardError:
        return None
    return hashlib.sha256(data).hexdigest()


def frontmatter_of(raw: bytes) -> dict[str, Any] | None:
    split = split_frontmatter(raw[: 128 * 1024].decode("utf-8", errors="replace"))
    if not split.has_block:
        return None
    parsed = parse_yaml_block(split.yaml_text)
    if parsed.data is None:
        return None
    out = jsonable(parsed.data)
    return out if isinstance(out, dict) else None
