"""The SQL of a search: ranking queries over ``notes_fts`` (BM25 with column weights, times a
note's folder multiplier) and the ``titles`` table, the look-ups that decide a term's
expansions, FTS5 syntax checks, snippets' source text and the corrections a caller may see."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from hoard.adapters.search.filtered import filter_clause
from hoard.adapters.search.types import Row, SearchRequest
from hoard.core.config import SearchConfig
from hoard.core.errors import BadQuery
from hoard.core.query import quote

_BM25 = "-bm25(notes_fts, ?, ?, ?, ?, ?, ?, ?, ?)"
"""A note's BM25 (higher is better), one weight parameter a column."""


TOP_FIRST = 2
"""A ranking query first takes this many times the notes it needs by BM25 alone, in the
full-text index, and joins only those to their ``notes`` rows for the folder multiplier (see
:meth:`FtsQueries.run`)."""


def folder_range(folder: str) -> tuple[str, str]:
    return folder + "/", folder + "0"  # '0' sorts right after '/'


def rows_of(cursor: sqlite3.Cursor) -> list[Row]:
    return [Row(*r) for r in cursor]


class FtsQueries:
    """The ranking and look-up queries of one index, with the search's column weights."""

    def __init__(self, s: SearchConfig) -> None:
        self.weights = (
            s.weight_path,
            s.weight_title,
            s.weight_tags,
            s.weight_body,
            s.weight_frontmatter,
            s.weight_body,
            s.weight_title,  # title_seg: the title's n-grams weigh as the title
            s.weight_body,  # body_seg
        )
        self._validator = sqlite3.connect(":memory:", check_same_thread=False)
        self._validator.execute(
            "CREATE VIRTUAL TABLE notes_fts USING fts5("
            "path, title, tags, body, frontmatter, alt, title_seg, body_seg)"
        )
        self._validator_lock = threading.Lock()
        self.max_mult = max([1.0, *s.folder_weights.values()])
        """No note's folder multiplier is above this (notes outside ``folder_weights``: 1)."""

    def check_fts_syntax(self, expr: str) -> None:
        """Run the expression against an empty FTS5 table with our columns: an error there is
        the query's fault (``bad_query``, in SQLite's words), never the index's."""
        if not expr.strip():
            raise BadQuery("empty query", query=expr)
        with self._validator_lock:
            try:
                self._validator.execute(
                    "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?", (expr,)
                ).fetchall()
            except sqlite3.Error as exc:
                raise BadQuery(f"bad FTS5 query: {exc}", query=expr) from exc

    @staticmethod
    def vocabulary(conn: sqlite3.Connection) -> list[tuple[str, int]]:
        """Every word as written in the notes, with the number of notes holding it."""
        return [(t, d) for t, d in conn.execute("SELECT term, doc FROM words_vocab")]

    @staticmethod
    def words_with_prefix(conn: sqlite3.Connection, prefix: str, most: int) -> list[str]:
        """Words as written that start with ``prefix``, most common first."""
        rows = conn.execute(
            "SELECT term FROM words_vocab WHERE term >= ? AND term < ? ORDER BY doc DESC LIMIT ?",
            (prefix, prefix + "\U0010ffff", most),
        ).fetchall()
        return [r[0] for r in rows]

    @staticmethod
    def matches_anything(conn: sqlite3.Connection, term: str, prefix: bool) -> bool:
        """Does the term match as the index sees it (stemmed, folded, any column)?"""
        quoted = quote(term)
        sql = "SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? LIMIT 1"
        if conn.execute(sql, (quoted,)).fetchone() is not None:
            return True  # the cheap test first: a prefix query reads every word it completes
        return prefix and conn.execute(sql, (quoted + "*",)).fetchone() is not None

    def run(
        self,
        conn: sqlite3.Connection,
        expr: str,
        req: SearchRequest,
        fetch: int,
        window: int | None = None,
    ) -> list[Row]:
        """The best ``fetch`` notes matching ``expr``; with ``window``, only the ``window``
        most recently indexed of them are weighed."""
        if window is None and not req.folder and req.filters is None:
            top = self._top_first(conn, expr, fetch)
            if top is not None:
                return top
        if window is None:
            sql = (
                f"SELECT n.id, n.path, n.title, n.folder, n.fm_json, {_BM25} * n.rank_mult AS s, "
                "n.rank_mult "
                "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
                "WHERE notes_fts MATCH ?"
            )
            params: list[Any] = [*self.weights, expr]
        else:
            sql = (
                "SELECT n.id, n.path, n.title, n.folder, n.fm_json, w.b * n.rank_mult AS s, "
                "n.rank_mult "
                f"FROM (SELECT rowid AS id, {_BM25} AS b "
                "FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid DESC LIMIT ?) AS w "
                "JOIN notes n ON n.id = w.id WHERE 1"
            )
            params = [*self.weights, expr, window]
        return self._page(conn, sql, params, req, fetch)

    def _top_first(self, conn: sqlite3.Connection, expr: str, fetch: int) -> list[Row] | None:
        """The best ``fetch`` notes, from the best ``TOP_FIRST * fetch`` by BM25 alone, joined
        to their ``notes`` rows in the same statement: joining every match before sorting cost
        more than weighing it (the AND of three common words in 3,700 of the 250k generated
        notes: 25 ms with the join, 18 without). ``None`` when a note further down could
        still rank among them through its folder multiplier: the caller weighs them all."""
        want = fetch * TOP_FIRST
        found = conn.execute(
            "SELECT n.id, n.path, n.title, n.folder, n.fm_json, w.b * n.rank_mult, n.rank_mult, "
            f"w.b FROM (SELECT rowid AS id, {_BM25} AS b FROM notes_fts WHERE notes_fts MATCH ? "
            "ORDER BY b DESC LIMIT ?) AS w JOIN notes n ON n.id = w.id",
            [*self.weights, expr, want],
        ).fetchall()
        rows = sorted((Row(*r[:7]) for r in found), key=lambda r: (-r.score, r.id))
        if len(found) == want and (
            len(rows) < fetch or rows[fetch - 1].score < min(r[7] for r in found) * self.max_mult
        ):
            return None
        return rows[:fetch]

    def run_titles(
        self, conn: sqlite3.Connection, expr: str, req: SearchRequest, fetch: int
    ) -> list[Row]:
        """The best ``fetch`` notes whose title or tags match ``expr``, by BM25 of the
        ``titles`` table (its own word counts, title and tags weighed as in the search)."""
        sql = (
            "SELECT n.id, n.path, n.title, n.folder, n.fm_json, "
            "-bm25(titles, ?, ?) * n.rank_mult AS s, n.rank_mult "
            "FROM titles JOIN notes n ON n.id = titles.rowid WHERE titles MATCH ?"
        )
        return self._page(conn, sql, [*self.weights[1:3], expr], req, fetch)

    @staticmethod
    def _page(
        conn: sqlite3.Connection, sql: str, params: list[Any], req: SearchRequest, fetch: int
    ) -> list[Row]:
        if req.folder:
            lo, hi = folder_range(req.folder)
            sql += " AND n.path >= ? AND n.path < ?"
            params += [lo, hi]
        if req.filters is not None:
            where, extra = filter_clause(req.filters)
            sql += where
            params += extra
        sql += " ORDER BY s DESC LIMIT ?"
        params.append(fetch)
        return rows_of(conn.execute(sql, params))

    @staticmethod
    def bodies(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, str | None]]:
        """The indexed body text of the notes with these row ids."""
        marks = ",".join("?" * len(ids))
        return conn.execute(
            f"SELECT rowid, body FROM notes_fts WHERE rowid IN ({marks})", ids
        ).fetchall()

    @staticmethod
    def shown_corrections(
        conn: sqlite3.Connection, corrections: dict[int, list[str]], ids: list[int]
    ) -> dict[int, list[str]]:
        """Only corrections that occur in a result this caller may see: the vocabulary
        spans protected notes, and a correction must never name a word only they hold."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        out: dict[int, list[str]] = {}
        for i, words in corrections.items():
            kept = [
                w
                for w in words
                if conn.execute(
                    f"SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN ({marks}) "
                    "LIMIT 1",
                    [quote(w), *ids],
                ).fetchone()
            ]
            if kept:
                out[i] = kept
        return out
