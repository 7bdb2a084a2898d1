"""Search engines behind one small seam, :class:`Searcher`.

:class:`Fts5Searcher` is the engine: BM25 with column weights over ``notes_fts``, folder rank
multipliers, typo corrections ranked below exact matches, a diversity cap, snippets from the
original text. :class:`~hoard.adapters.search.fallback.SubstringSearcher` is the labeled
fallback the service uses while the index is unusable.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hoard.adapters.index.store import Index
from hoard.adapters.search.bonus import Row, Scores, add_feedback, add_phrase_bonus
from hoard.adapters.search.budget import Plan, WordCounts, held_to_budget, plan_groups
from hoard.adapters.search.conjunctive import conjunctive_rows
from hoard.adapters.search.typos import Vocabulary
from hoard.core.config import Config
from hoard.core.errors import BadQuery
from hoard.core.query import (
    Chunk,
    adjacent_pairs,
    build_groups,
    is_prefix_eligible,
    max_edits,
    parse_natural,
    quote,
)
from hoard.core.snippet import best_window

Visible = Callable[[str], bool]

FTS_OPERATORS = frozenset({"and", "or", "not", "near"})

_BM25 = "-bm25(notes_fts, ?, ?, ?, ?, ?, ?)"
"""A note's BM25 (higher is better), one weight parameter a column."""

NO_PREFIX = 1 << 30
"""A ``prefix_min_length`` no word reaches."""

PREFIX_COMPLETIONS = 4
"""How many words as written a prefix term also matches exactly (most common first)."""


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    limit: int = 10
    folder: str | None = None
    mode: str = "natural"
    visible: Visible | None = None


@dataclass(slots=True)
class Hit:
    path: str
    title: str
    score: float
    snippet: str
    folder: str
    frontmatter: dict[str, Any] | None
    typo_only: bool = False
    rowid: int = 0


@dataclass(slots=True)
class SearchOutcome:
    hits: list[Hit]
    engine: str
    hidden: int = 0
    error: str | None = None
    corrections: dict[str, list[str]] = field(default_factory=dict)


class Searcher(Protocol):
    name: str

    def search(self, req: SearchRequest) -> SearchOutcome: ...


def diversify(hits: list[Hit], cap: int) -> list[Hit]:
    """At most ``cap`` hits per folder before every other folder had its turn; extra hits
    move below, in their order, and are never dropped."""
    seen: dict[str, int] = {}
    first: list[Hit] = []
    later: list[Hit] = []
    for h in hits:
        n = seen.get(h.folder, 0)
        (first if n < cap else later).append(h)
        seen[h.folder] = n + 1
    return first + later


def _folder_range(folder: str) -> tuple[str, str]:
    return folder + "/", folder + "0"  # '0' sorts right after '/'


class Fts5Searcher:
    name = "fts5"

    def __init__(self, index: Index, config: Config) -> None:
        self.index = index
        self.config = config
        self.vocab = Vocabulary(self._load_vocab)
        self._word_counts = WordCounts()
        s = config.search
        self._weights = (
            s.weight_path,
            s.weight_title,
            s.weight_tags,
            s.weight_body,
            s.weight_frontmatter,
            s.weight_body,
        )
        self._stopwords = frozenset(w.lower() for w in (*s.stopwords, *s.owner_names))
        self._validator = sqlite3.connect(":memory:", check_same_thread=False)
        self._validator.execute(
            "CREATE VIRTUAL TABLE notes_fts USING fts5(path, title, tags, body, frontmatter, alt)"
        )
        self._validator_lock = threading.Lock()

    def _load_vocab(self) -> list[tuple[str, int]]:
        return [(t, d) for t, d in self.index.reader().execute("SELECT term, doc FROM words_vocab")]

    # -- query construction --------------------------------------------------------------------

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

    def _words_with_prefix(self, conn: sqlite3.Connection, prefix: str, most: int) -> list[str]:
        """Words as written that start with ``prefix``, most common first."""
        rows = conn.execute(
            "SELECT term FROM words_vocab WHERE term >= ? AND term < ? ORDER BY doc DESC LIMIT ?",
            (prefix, prefix + "\U0010ffff", most),
        ).fetchall()
        return [r[0] for r in rows]

    @staticmethod
    def _matches_anything(conn: sqlite3.Connection, term: str, prefix: bool) -> bool:
        """Does the term match as the index sees it (stemmed, folded, any column)?"""
        quoted = quote(term)
        sql = "SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? LIMIT 1"
        if conn.execute(sql, (quoted,)).fetchone() is not None:
            return True  # the cheap test first: a prefix query reads every word it completes
        return prefix and conn.execute(sql, (quoted + "*",)).fetchone() is not None

    def _expansions(
        self, conn: sqlite3.Connection, chunks: list[Chunk]
    ) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
        """For a term that matches nothing as the index sees it (stemmed, folded, as a
        prefix): the words as written that start with it (the porter index cannot complete
        ``optimiz`` to ``optimization``), else typo corrections."""
        s = self.config.search
        prefixes: dict[int, list[str]] = {}
        typos: dict[int, list[str]] = {}
        token: object = None
        for i, chunk in enumerate(chunks):
            term = chunk.single
            if term is None or chunk.alternatives:
                continue
            prefix = is_prefix_eligible(term, s.prefix_min_length)
            if self._matches_anything(conn, term, prefix):
                continue
            if prefix:
                extra = [
                    w
                    for w in self._words_with_prefix(conn, term, PREFIX_COMPLETIONS + 1)
                    if w != term
                ][:PREFIX_COMPLETIONS]
                if extra:
                    prefixes[i] = extra
                    continue
            if not s.typo:
                continue
            edits = max_edits(term, s.typo_min_length, s.typo_two_edits_length)
            if edits == 0:
                continue
            if token is None:
                token = self.index.reader_token()
            fixes = self.vocab.corrections(term, edits, token)
            if fixes:
                typos[i] = fixes
        return prefixes, typos

    # -- running -------------------------------------------------------------------------------

    def _run(
        self,
        conn: sqlite3.Connection,
        expr: str,
        req: SearchRequest,
        fetch: int,
        window: int | None = None,
    ) -> list[Row]:
        """The best ``fetch`` notes matching ``expr``; with ``window``, only the ``window``
        most recently indexed of them are weighed."""
        if window is None:
            sql = (
                f"SELECT n.id, n.path, n.title, n.folder, n.fm_json, {_BM25} * n.rank_mult AS s "
                "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
                "WHERE notes_fts MATCH ?"
            )
            params: list[Any] = [*self._weights, expr]
        else:
            sql = (
                "SELECT n.id, n.path, n.title, n.folder, n.fm_json, w.b * n.rank_mult AS s "
                f"FROM (SELECT rowid AS id, {_BM25} AS b "
                "FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid DESC LIMIT ?) AS w "
                "JOIN notes n ON n.id = w.id WHERE 1"
            )
            params = [*self._weights, expr, window]
        return self._page(conn, sql, params, req, fetch)

    def _run_titles(
        self, conn: sqlite3.Connection, expr: str, req: SearchRequest, fetch: int
    ) -> list[Row]:
        """The best ``fetch`` notes whose title or tags match ``expr``, by BM25 of the
        ``titles`` table (its own word counts, title and tags weighed as in the search)."""
        sql = (
            "SELECT n.id, n.path, n.title, n.folder, n.fm_json, "
            "-bm25(titles, ?, ?) * n.rank_mult AS s "
            "FROM titles JOIN notes n ON n.id = titles.rowid WHERE titles MATCH ?"
        )
        return self._page(conn, sql, [*self._weights[1:3], expr], req, fetch)

    @staticmethod
    def _page(
        conn: sqlite3.Connection, sql: str, params: list[Any], req: SearchRequest, fetch: int
    ) -> list[Row]:
        if req.folder:
            lo, hi = _folder_range(req.folder)
            sql += " AND n.path >= ? AND n.path < ?"
            params += [lo, hi]
        sql += " ORDER BY s DESC LIMIT ?"
        params.append(fetch)
        return conn.execute(sql, params).fetchall()

    def search(self, req: SearchRequest) -> SearchOutcome:
        s = self.config.search
        conn = self.index.reader()
        corrections: dict[int, list[str]] = {}
        completions: dict[int, list[str]] = {}
        chunks: list[Chunk] = []
        groups: list[str] = []
        rescore = ""
        plan = Plan([])
        left_out = False
        if req.mode == "fts":
            self.check_fts_syntax(req.query)
            expr = req.query
            chunks = [
                c for c in parse_natural(req.query, FTS_OPERATORS) if c.single not in FTS_OPERATORS
            ]
        else:
            chunks = parse_natural(req.query, self._stopwords)
            if not chunks:
                return SearchOutcome([], self.name)
            completions, corrections = self._expansions(conn, chunks)
            groups = build_groups(chunks, s.prefix_min_length, completions)
            heads = [
                " OR ".join(map(quote, corrections[i]))
                if i in corrections
                else quote(" ".join(c.tokens))
                for i, c in enumerate(chunks)
            ]
            plan = plan_groups(
                conn,
                heads,
                [None if i in corrections else c.single for i, c in enumerate(chunks)],
                s,
                self.index.note_count_cached(),
                lambda w: self._word_counts.count(conn, w, self.index.reader_token()),
            )
            left_out = len(plan.kept) < len(chunks)
            if plan.rescore:
                exact = build_groups([chunks[i] for i in plan.rescore], NO_PREFIX)
                rescore = " OR ".join(exact)
            if left_out:
                chunks, completions, corrections = _subset(
                    plan.kept, chunks, completions, corrections
                )
                groups = [groups[i] for i in plan.kept]
            expr = " OR ".join(groups)
        fetch = max(50, req.limit * 5)
        merged = {
            i: completions.get(i, []) + corrections.get(i, [])
            for i in set(completions) | set(corrections)
        }
        rows: list[Row] = []
        scores: Scores = {}
        if plan.conjunctive:
            # Every hit holds each group, a misspelt word's through its corrections. Words
            # in thousands of notes match as written: a prefix would read every word it
            # completes (4x the time on the 250k vault), and a word that needed
            # completing has its completions among the alternatives.
            anded = build_groups(chunks, NO_PREFIX, merged)
            rows = conjunctive_rows(
                conn,
                anded,
                s.posting_budget,
                req.limit,
                lambda e: self._run(conn, e, req, fetch),
                lambda e: self._run_titles(conn, e, req, fetch),
                lambda e, n: self._run(conn, e, req, fetch, window=n),
            )
            factor = s.typo_penalty if corrections else 1.0
            scores = {r[0]: (r[5] * factor, bool(corrections), r) for r in rows}
            if len(rows) < req.limit:
                plan, scores = Plan(plan.kept, cut=True), {}
        if not plan.conjunctive:
            rows = self._run(conn, expr, req, fetch)
            scores = {r[0]: (r[5], False, r) for r in rows}
            if rescore and rows:
                # The notes found that also hold left-out words, with their full score.
                for r in self._run(conn, f"({expr}) AND ({rescore})", req, fetch):
                    scores[r[0]] = (r[5], False, r)
            if corrections:
                # Only notes holding a correction score differently with it. Their full
                # score, each phrase once: `fixes AND expr` for those holding other query
                # words too, `fixes` for those holding only a correction (cheaper than the
                # whole query again with the corrections in it; the same top).
                fixes = " OR ".join(quote(w) for ws in corrections.values() for w in ws)
                found = self._run(conn, fixes, req, fetch)
                found += self._run(conn, f"({fixes}) AND ({expr})", req, fetch)
                base = set(scores)
                for r in found:
                    penalised = r[5] * s.typo_penalty
                    prev = scores.get(r[0])
                    if prev is None or penalised > prev[0]:
                        scores[r[0]] = (penalised, r[0] not in base, r)

        def run(groups: list[str]) -> list[Row]:
            return self._run(conn, " OR ".join(groups), req, fetch)

        def run_held(groups: list[str]) -> list[Row]:
            """Feedback words, held to the posting budget like the query's own."""
            held = held_to_budget(conn, groups, s.posting_budget, self.index.note_count_cached())
            return run(held) if held else []

        natural = req.mode == "natural" and bool(rows) and not plan.conjunctive
        if natural and s.phrase_weight > 0:
            # Pairs match no more notes than their words: within the budget when the words
            # are (words the budget left out take their pairs with them).
            pairs = adjacent_pairs(req.query, self._stopwords)
            if plan.cut:
                # A pair needs one searched word: FTS5 weighs a phrase by walking the notes
                # that hold it, which is quick when one of its words is rare and slow when
                # both are common ("vulnerability in": 20 ms on the CVE corpus).
                kept = {c.single for c in chunks if c.single is not None}
                pairs = [p for p in pairs if set(p.split(" ")) & kept]
            add_phrase_bonus(scores, pairs, s, run)
        # A query the budget had to cut gets no feedback words: they would bring back the
        # rows it just left out (20 ms of a 100 ms sentence-long query on the CVE corpus).
        feedback = natural and not plan.cut and s.feedback_terms > 0
        if feedback and len(chunks) >= s.feedback_min_words:
            asked = {t for c in chunks for t in c.tokens} | self._stopwords
            add_feedback(conn, scores, asked, self.vocab, self.index, s, run_held)
        ranked = sorted(scores.values(), key=lambda v: (-v[0], v[2][1]))
        hits: list[Hit] = []
        fm_raw: dict[int, str | None] = {}
        hidden = 0
        for score, typo_only, r in ranked:
            if req.visible is not None and not req.visible(r[1]):
                hidden += 1
                continue
            hits.append(Hit(r[1], r[2], significant(score), "", r[3], None, typo_only, r[0]))
            fm_raw[r[0]] = r[4]
        page = diversify(hits, s.folder_cap)[: req.limit]
        for h in page:
            raw = fm_raw.get(h.rowid)
            h.frontmatter = json.loads(raw) if raw else None
        terms = [t for c in chunks for t in (*c.tokens, *c.alternatives)]
        terms += [w for ws in (*completions.values(), *corrections.values()) for w in ws]
        self._add_snippets(conn, page, terms)
        if req.visible is not None and corrections:
            corrections = self._shown_corrections(conn, corrections, page)
        return SearchOutcome(
            page,
            self.name,
            hidden=hidden,
            corrections={chunks[i].tokens[0]: v for i, v in corrections.items()},
        )

    @staticmethod
    def _shown_corrections(
        conn: sqlite3.Connection, corrections: dict[int, list[str]], page: list[Hit]
    ) -> dict[int, list[str]]:
        """Only corrections that occur in a result this caller may see: the vocabulary
        spans protected notes, and a correction must never name a word only they hold."""
        ids = [h.rowid for h in page]
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

    def _add_snippets(self, conn: sqlite3.Connection, page: list[Hit], terms: list[str]) -> None:
        """Snippets cut from each hit's original body text (see :mod:`hoard.core.snippet`)."""
        if not page:
            return
        by_id = {h.rowid: h for h in page}
        marks = ",".join("?" * len(by_id))
        rows = conn.execute(
            f"SELECT rowid, body FROM notes_fts WHERE rowid IN ({marks})", list(by_id)
        ).fetchall()
        width = self.config.search.snippet_chars
        for rowid, body in rows:
            by_id[rowid].snippet = best_window(body or "", terms, width)


def _subset(
    kept: list[int],
    chunks: list[Chunk],
    completions: dict[int, list[str]],
    corrections: dict[int, list[str]],
) -> tuple[list[Chunk], dict[int, list[str]], dict[int, list[str]]]:
    """The chunks at ``kept`` and their expansions, renumbered."""
    new = {old: i for i, old in enumerate(kept)}
    return (
        [chunks[i] for i in kept],
        {new[i]: v for i, v in completions.items() if i in new},
        {new[i]: v for i, v in corrections.items() if i in new},
    )


def significant(score: float) -> float:
    """Six significant digits: BM25 gives words in most notes a tiny IDF, and rounding to
    decimal places would flatten those scores to zero."""
    return float(f"{score:.6g}")
