"""Field filters inside the index query, the filtered listing, and tag counts.

The filters become one SQL condition over ``notes n`` (its ``type_key``, ``status_key`` and
``updated`` columns and the ``note_tags`` table), added to the search's own query, so the
page is cut after filtering, never before. Visibility (protected notes) is the caller's
``visible`` test, applied to the rows as they come, before anything is counted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hoard.adapters.index.store import Index
from hoard.core.choices import TagSource
from hoard.core.filters import Filters
from hoard.core.reach import counts_as_hidden
from hoard.core.snippet import best_window

Visible = Callable[[str], bool]

_HAS_TAG = "EXISTS (SELECT 1 FROM note_tags t WHERE t.note = n.id AND t.tag_key {})"


def folder_range(folder: str) -> tuple[str, str]:
    return folder + "/", folder + "0"  # '0' sorts right after '/'


def filter_clause(f: Filters) -> tuple[str, list[Any]]:
    """``(" AND ...", params)`` restricting ``notes n`` to the filters ('' when none)."""
    parts: list[str] = []
    params: list[Any] = []
    for column, values in (("n.type_key", f.type), ("n.status_key", f.status)):
        if values:
            parts.append(f"{column} IN ({','.join('?' * len(values))})")
            params += values
    for tag in f.tags:
        parts.append(_HAS_TAG.format("= ?"))
        params.append(tag)
    if f.tags_any:
        parts.append(_HAS_TAG.format(f"IN ({','.join('?' * len(f.tags_any))})"))
        params += f.tags_any
    if f.updated_after:
        parts.append("n.updated >= ?")
        params.append(f.updated_after)
    if f.updated_before:
        parts.append("n.updated <= ?")
        params.append(f.updated_before)
    if f.folder:
        parts.append("n.path >= ? AND n.path < ?")
        params += folder_range(f.folder)
    return ("".join(f" AND {p}" for p in parts), params)


@dataclass(frozen=True, slots=True)
class Listing:
    rows: list[tuple[int, str, str, str, str | None]]
    """``(id, path, title, folder, fm_json)`` of the page, newest ``updated`` first."""
    hidden: int
    next_offset: int | None


def list_notes(
    conn: sqlite3.Connection,
    f: Filters,
    folder: str | None,
    visible: Visible | None,
    limit: int,
    offset: int,
) -> Listing:
    """Every note the filters match, newest ``updated`` first (undated last), paged."""
    where, params = filter_clause(f)
    if folder:
        where += " AND n.path >= ? AND n.path < ?"
        params += folder_range(folder)
    cur = conn.execute(
        "SELECT n.id, n.path, n.title, n.folder, n.fm_json FROM notes n "
        f"WHERE 1{where} ORDER BY n.updated IS NULL, n.updated DESC, n.path",
        params,
    )
    page: list[tuple[int, str, str, str, str | None]] = []
    hidden = seen = 0
    more = False
    for row in cur:
        if visible is not None and not visible(row[1]):
            hidden += counts_as_hidden(visible, row[1])
            continue
        if seen >= offset + limit:
            more = True
        elif seen >= offset:
            page.append(row)
        seen += 1
    return Listing(page, hidden, offset + limit if more else None)


def tag_counts(
    conn: sqlite3.Connection, visible: Visible | None, folder: str | None
) -> list[tuple[str, int, TagSource]]:
    """Each tag (as most notes write it) with the number of visible notes carrying it and
    where they write it (``frontmatter``, ``inline`` or ``both``), most used first. Counted
    by SQL; the tags of notes the caller cannot see are then taken off (there are few of
    those, and the visibility test is Python)."""
    where, params = "", []
    if folder:
        where, params = " AND n.path >= ? AND n.path < ?", list(folder_range(folder))
    spellings: dict[str, dict[str, int]] = {}
    sources: dict[str, dict[str, int]] = {}
    sql = (
        "SELECT t.tag_key, t.tag, t.source, COUNT(*) FROM note_tags t "
        f"JOIN notes n ON n.id = t.note WHERE 1{where} GROUP BY t.tag_key, t.tag, t.source"
        if folder
        else "SELECT tag_key, tag, source, COUNT(*) FROM note_tags GROUP BY tag_key, tag, source"
    )
    for key, tag, source, n in conn.execute(sql, params):
        forms = spellings.setdefault(key, {})
        forms[tag] = forms.get(tag, 0) + n
        sources.setdefault(key, {})[source] = sources.get(key, {}).get(source, 0) + n
    if visible is not None:
        hidden = [
            nid
            for nid, path in conn.execute(
                f"SELECT n.id, n.path FROM notes n WHERE 1{where}", params
            )
            if not visible(path)
        ]
        for start in range(0, len(hidden), 500):
            ids = hidden[start : start + 500]
            marks = ",".join("?" * len(ids))
            sql = f"SELECT tag_key, tag, source FROM note_tags WHERE note IN ({marks})"
            for key, tag, source in conn.execute(sql, ids):
                spellings[key][tag] -= 1
                sources[key][source] -= 1
    named = [
        (_most_written(forms), total, _source(sources[key]))
        for key, forms in spellings.items()
        if (total := sum(forms.values())) > 0
    ]
    return sorted(named, key=lambda t: (-t[1], t[0]))


def _source(counts: dict[str, int]) -> TagSource:
    """``frontmatter``, ``inline`` or ``both``: where the visible notes write a tag."""
    kinds = {k for k, n in counts.items() if n > 0}
    if kinds == {"frontmatter"}:
        return "frontmatter"
    return "inline" if kinds == {"inline"} else "both"


def _most_written(forms: dict[str, int]) -> str:
    return max(((n, t) for t, n in forms.items() if n > 0), default=(0, ""))[1]


@dataclass(slots=True)
class Listed:
    path: str
    title: str
    folder: str
    frontmatter: dict[str, Any] | None
    snippet: str


class FieldIndex:
    """The filtered listing and the tag counts, over the index's reader connection."""

    def __init__(self, index: Index, snippet_chars: int) -> None:
        self.index = index
        self.snippet_chars = snippet_chars

    def listing(
        self,
        f: Filters,
        folder: str | None,
        visible: Visible | None,
        limit: int,
        offset: int,
    ) -> tuple[list[Listed], int, int | None]:
        """``(page, hidden, next_offset)``: the notes the filters match, newest first."""
        conn = self.index.reader()
        found = list_notes(conn, f, folder, visible, limit, offset)
        bodies: dict[int, str] = {}
        if found.rows:
            ids = [r[0] for r in found.rows]
            marks = ",".join("?" * len(ids))
            sql = f"SELECT rowid, body FROM notes_fts WHERE rowid IN ({marks})"
            bodies = dict(conn.execute(sql, ids).fetchall())
        page = [
            Listed(
                path=path,
                title=title,
                folder=fold,
                frontmatter=json.loads(fm) if fm else None,
                snippet=best_window(bodies.get(rowid) or "", [], self.snippet_chars),
            )
            for rowid, path, title, fold, fm in found.rows
        ]
        return page, found.hidden, found.next_offset

    def tags(self, visible: Visible | None, folder: str | None) -> list[tuple[str, int, TagSource]]:
        return tag_counts(self.index.reader(), visible, folder)
