"""The in-process rows: the full index build, an incremental sync with nothing changed, and a
raw FTS5 query on hoard's own index file (no ranking, typos or snippets: the floor)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoard.app.hoard import Hoard
from hoard.benchmark.queries import WORD, Query
from hoard.benchmark.rows import Row
from hoard.core.query import quote

ProgressFn = Callable[[int, int], None]
RAW_SQL = "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank LIMIT 10"


@dataclass
class Indexed:
    """What the build left: rows, the notes' titles and linked notes, the index size."""

    rows: list[Row] = field(default_factory=list)
    titles: list[tuple[str, str]] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def index_bytes(state: Path) -> int:
    """The index on disk: ``index.db`` and its WAL and shared-memory files."""
    return sum(p.stat().st_size for p in state.glob("index.db*") if p.is_file())


def build_index(vault: Path, state: Path, progress: ProgressFn | None) -> tuple[Hoard, Row]:
    """Open hoard on an empty state folder (a full build of the index), timed."""
    row = Row("rebuild", "full rebuild (first open, empty state)", "in-process")
    t0 = time.perf_counter()
    hoard = Hoard(vault, state, watch=True, progress=progress)  # as a server runs
    row.add((time.perf_counter() - t0) * 1000)
    report = hoard.startup_report
    if report.failed:
        row.note = f"{report.failed} notes could not be indexed"
    return hoard, row


def indexed_facts(hoard: Hoard, out: Indexed) -> None:
    """Titles (for sampled queries), notes with links, counts, read from the index."""
    conn = hoard.index.reader()
    out.titles = [(str(p), str(t)) for p, t in conn.execute("SELECT path, title FROM notes")]
    out.linked = [
        str(p)
        for (p,) in conn.execute(
            "SELECT DISTINCT n.path FROM notes n JOIN links l ON l.src = n.id ORDER BY n.path"
        )
    ]
    out.facts["indexed_notes"] = hoard.index.note_count()
    out.facts["notes_with_links"] = len(out.linked)


def no_change_sync(hoard: Hoard, n: int, warmup: int) -> Row:
    """``Hoard.ensure_fresh`` with the watcher running: the incremental sync a server does
    before every search (the watcher has already applied changes; nothing changed here)."""
    row = Row("sync_nochange", "incremental sync, nothing changed (watcher running)", "in-process")
    if hoard.watcher is None or not hoard.watcher.running:
        row.error("the file watcher is not running")
        return row
    for _ in range(warmup):
        hoard.keeper.ensure_fresh()
    for i in range(n):
        t0 = time.perf_counter()
        hoard.keeper.ensure_fresh()
        row.add((time.perf_counter() - t0) * 1000, f"check {i}")
    return row


def stat_walk(hoard: Hoard, n: int, warmup: int) -> Row:
    """``Index.sync``: the full stat walk that finds nothing to do (the startup check, and
    the fallback when no watcher runs)."""
    row = Row("stat_walk", "full stat walk, nothing changed (no watcher)", "in-process")
    for _ in range(warmup):
        hoard.index.sync()
    for i in range(n):
        t0 = time.perf_counter()
        report = hoard.index.sync()
        row.add((time.perf_counter() - t0) * 1000, f"walk {i}")
        if report.changed:
            row.error(f"walk {i}: {report.changed} notes changed while nothing should")
    return row


def or_expression(query: str) -> str:
    words = [w.lower() for w in WORD.findall(query)]
    return " OR ".join(quote(w) for w in words)


def raw_fts(index_path: Path, queries: Sequence[Query], n: int, warmup: int) -> Row:
    """A plain FTS5 ``MATCH`` of the query words OR-ed, BM25 order, on a separate read-only
    connection to hoard's index."""
    row = Row("raw_fts", "raw FTS5 query (words OR-ed, BM25, top 10)", "in-process")
    conn = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True)
    try:
        exprs = [or_expression(q.text) or '""' for q in queries]
        for i in range(n + warmup):
            expr = exprs[i % len(exprs)]
            t0 = time.perf_counter()
            try:
                conn.execute(RAW_SQL, (expr,)).fetchall()
            except sqlite3.Error as exc:
                row.error(f"{expr!r}: {exc}")
                continue
            if i >= warmup:
                row.add((time.perf_counter() - t0) * 1000, expr[:100])
    finally:
        conn.close()
    return row


def measure(
    vault: Path,
    state: Path,
    n: int,
    warmup: int,
    progress: ProgressFn | None,
    done_building: Callable[[], None],
    say: Callable[[str], None],
) -> tuple[Indexed, Hoard]:
    """Build the index (timed) and measure the no-change sync. The caller closes the
    returned :class:`Hoard` (after :func:`raw_fts`, which needs the query set)."""
    out = Indexed()
    say("building the index (full rebuild)")
    try:
        hoard, row = build_index(vault, state, progress)
    finally:
        done_building()
    out.rows.append(row)
    try:
        indexed_facts(hoard, out)
        say(f"incremental sync, nothing changed: {warmup} warm-up + {n} timed")
        out.rows.append(no_change_sync(hoard, n, warmup))
        say(f"full stat walk, nothing changed: {warmup} warm-up + {n} timed")
        out.rows.append(stat_walk(hoard, n, warmup))
    except BaseException:
        hoard.close()
        raise
    out.facts["index_bytes"] = index_bytes(state)
    return out, hoard
