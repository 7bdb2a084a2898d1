"""The search engine the app's search use-case calls.

:class:`Fts5Searcher` runs a search in four steps: **plan** (:mod:`.plan`: the query's words,
their completions or typo corrections, what the posting budget keeps), **run** (:mod:`.queries`:
BM25 with column weights times folder multipliers; the conjunctive tiers of :mod:`.conjunctive`
when every word is common), **score** (typo-found hits below exact ones, the proximity and
feedback bonuses of :mod:`.bonus`) and **page** (protected notes hidden and counted, the
diversity cap, frontmatter, snippets from the original text). The labeled fallback while the
index is unusable is :class:`~hoard.adapters.search.fallback.SubstringSearcher`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from hoard.adapters.index.deadline import Clock, interrupting, is_interrupt
from hoard.adapters.index.store import Index
from hoard.adapters.search.bonus import add_feedback, add_phrase_bonus
from hoard.adapters.search.budget import GroupCounter, Plan, held_to_budget
from hoard.adapters.search.conjunctive import conjunctive_rows
from hoard.adapters.search.exact import add_exact_forms
from hoard.adapters.search.fusion import blend_rows
from hoard.adapters.search.plan import NO_PREFIX, Planner, QueryPlan, fts_plan
from hoard.adapters.search.queries import FtsQueries
from hoard.adapters.search.typeahead import typeahead
from hoard.adapters.search.types import (
    Row,
    Scored,
    Scores,
    SearchOutcome,
    SearchRequest,
    diversify,
    shown_best_first,
    significant,
)
from hoard.adapters.search.typo_fill import fill_with_typos
from hoard.adapters.search.typos import Vocabulary
from hoard.core.choices import SearchEngine
from hoard.core.config import Config
from hoard.core.models import SearchHit
from hoard.core.query import adjacent_pairs, build_groups, quote
from hoard.core.snippet import best_window


class Fts5Searcher:
    name: SearchEngine = "fts5"

    def __init__(self, index: Index, config: Config) -> None:
        self.index = index
        self.config = config
        self.queries = FtsQueries(config.search)
        self.vocab = Vocabulary(lambda: self.queries.vocabulary(self.index.reader()))
        self.planner = Planner(index, self.queries, self.vocab, config.search)

    def search(self, req: SearchRequest) -> SearchOutcome:
        """Plan, run and score, then the optional steps (bonuses, typo fill, semantic blend),
        then the page. Past ``req.deadline`` SQLite stops the running statement: a search
        stopped before anything was scored answers empty, one stopped later keeps what it
        had; either way ``timed_out`` says so. The page is cut without the budget (its work
        is bounded by the page size)."""
        conn = self.index.reader()
        fetch = max(50, req.limit * 5, req.semantic_asked if req.semantic is not None else 0)
        if req.mode == "typeahead":
            return self._typeahead(conn, req, fetch)
        with interrupting(conn, req.deadline) as clock:
            try:
                q = self._plan(conn, req)
                if q is None:
                    return SearchOutcome([], self.name)
                scores, budget, found = self._score(conn, q, req, fetch)
                q, scores, budget, found = self._with_common(
                    conn, req, fetch, q, scores, budget, found
                )
            except sqlite3.OperationalError as exc:
                if not is_interrupt(exc):
                    raise
                return SearchOutcome([], self.name, timed_out=True)
            blended: list[bool] = []
            for step in self._refinements(conn, q, req, fetch, budget, found, blended):
                scores = _within(clock, scores, step)
        outcome = self._page(conn, q, scores, req)
        outcome.common_kept = q.common if q.common_kept else []
        outcome.timed_out = clock.hit
        outcome.blended = bool(blended)
        return outcome

    def _typeahead(self, conn: sqlite3.Connection, req: SearchRequest, fetch: int) -> SearchOutcome:
        with interrupting(conn, req.deadline) as clock:
            try:
                found = typeahead(conn, self.queries, req, fetch)
            except sqlite3.OperationalError as exc:
                if not is_interrupt(exc):
                    raise
                return SearchOutcome([], self.name, timed_out=True)
        if found is None:
            return SearchOutcome([], self.name)
        outcome = self._page(conn, *found, req)
        outcome.timed_out = clock.hit
        return outcome

    def _with_common(
        self,
        conn: sqlite3.Connection,
        req: SearchRequest,
        fetch: int,
        q: QueryPlan,
        scores: Scores,
        budget: Plan,
        found: bool,
    ) -> tuple[QueryPlan, Scores, Plan, bool]:
        """When leaving out the common words leaves the page short, the query again with
        them (``home ass``: ``home`` is in 40% of the notes, ``ass`` in none). The notes it
        adds fill the page below the ones already found, whose order stands (re-ranking
        them with the common words cost 0.010 nDCG@10 on CACM); the plan then says which
        words came back."""
        if not q.common or not _short(scores, req):
            return q, scores, budget, found
        again = self.planner.natural_plan(conn, req.query, keep_common=True)
        if again is None:
            return q, scores, budget, found
        more, _, _ = self._score(conn, again, req, fetch)
        extra = [v for k, v in more.items() if k not in scores]
        if _seen(dict(enumerate(extra)), req) == 0:
            return q, scores, budget, found
        floor = min((v.score for v in scores.values()), default=0.0)
        top = max(v.score for v in extra)
        scale = 0.99 * floor / top if scores and top > 0 else 1.0
        merged = dict(scores)
        for k, v in more.items():
            if k not in scores:
                merged[k] = Scored(v.score * scale, v.typo_only, v.row)
        q.common_kept = True
        return q, merged, budget, True

    def _plan(self, conn: sqlite3.Connection, req: SearchRequest) -> QueryPlan | None:
        if req.mode == "fts":
            return fts_plan(self.queries, req.query)
        return self.planner.natural_plan(conn, req.query)

    def _refinements(
        self,
        conn: sqlite3.Connection,
        q: QueryPlan,
        req: SearchRequest,
        fetch: int,
        budget: Plan,
        found: bool,
        blended: list[bool],
    ) -> list[Refine]:
        """The steps after the first scores, in order; each changes the scores it is given.
        The semantic blend, last, appends to ``blended`` once it is done."""
        steps: list[Refine] = []
        natural = req.mode == "natural"
        ranking = self.config.search.ranking
        if natural and found and not budget.conjunctive and ranking.exact_weight > 0:
            total = max(1, self.index.note_count_cached())
            weights = self.queries.weights
            memo = self.planner.group_counts.current(self.index.reader_token())
            families = GroupCounter(conn, max(ranking.posting_budget, 1), memo)
            steps.append(
                lambda s: add_exact_forms(
                    conn, s, q.chunks, q.expr, weights, ranking, total, families
                )
            )
        if natural and found and not budget.conjunctive:
            steps.append(lambda s: self._add_bonuses(conn, q, budget, s, req, fetch))
        if natural and self.config.search.typo:

            def typos(s: Scores) -> None:
                if not _short(s, req):
                    return
                found_fixes = fill_with_typos(
                    q.chunks,
                    set(q.corrections) | set(q.completions),
                    lambda w, n: self.vocab.corrections(w, n, self.index.reader_token()),
                    self.config.search,
                    lambda e: self.queries.run(conn, e, req, fetch),
                    s,
                )
                q.corrections.update(found_fixes)

            steps.append(typos)
        if req.semantic is not None:

            def blend(s: Scores) -> None:
                fused = blend_rows(conn, s, req, self.config.search)
                s.clear()
                s.update(fused)
                blended.append(True)

            steps.append(blend)
        return steps

    # -- run and score ----------------------------------------------------------------------

    def _score(
        self, conn: sqlite3.Connection, q: QueryPlan, req: SearchRequest, fetch: int
    ) -> tuple[Scores, Plan, bool]:
        """Scores of the notes found, the budget plan as it turned out (a conjunctive search
        that found too few falls back to the disjunctive one), and whether anything matched."""
        budget = q.budget
        if budget.conjunctive:
            rows = self._conjunctive(conn, q, req, fetch)
            if len(rows) >= req.limit:
                factor = self.config.search.ranking.typo_penalty if q.corrections else 1.0
                flagged = bool(q.corrections)
                return {r.id: Scored(r.score * factor, flagged, r) for r in rows}, budget, True
            budget = Plan(budget.kept, cut=True)
        rows = self.queries.run(conn, q.expr, req, fetch)
        scores = {r.id: Scored(r.score, False, r) for r in rows}
        if q.rescore and rows:
            # The notes found that also hold left-out words, with their full score.
            for r in self.queries.run(conn, f"({q.expr}) AND ({q.rescore})", req, fetch):
                scores[r.id] = Scored(r.score, False, r)
        if q.corrections:
            self._score_corrections(conn, q, req, fetch, scores)
        return scores, budget, bool(rows)

    def _conjunctive(
        self, conn: sqlite3.Connection, q: QueryPlan, req: SearchRequest, fetch: int
    ) -> list[Row]:
        """Every hit holds each group, a misspelt word's through its corrections. Words in
        thousands of notes match as written: a prefix would read every word it completes (4x
        the time on the 250k vault), and a word that needed completing has its completions
        among the alternatives."""
        run = self.queries.run
        return conjunctive_rows(
            conn,
            build_groups(q.chunks, NO_PREFIX, q.expansions()),
            self.config.search.ranking.posting_budget,
            req.limit,
            lambda e: run(conn, e, req, fetch),
            lambda e: self.queries.run_titles(conn, e, req, fetch),
            lambda e, n: run(conn, e, req, fetch, window=n),
            self.planner.group_counts.current(self.index.reader_token()),
        )

    def _score_corrections(
        self, conn: sqlite3.Connection, q: QueryPlan, req: SearchRequest, fetch: int, scores: Scores
    ) -> None:
        """Only notes holding a correction score differently with it. Their full score, each
        phrase once: `fixes AND expr` for those holding other query words too, `fixes` for
        those holding only a correction (cheaper than the whole query again with the
        corrections in it; the same top). Typo-found scores count ``typo_penalty`` less."""
        fixes = " OR ".join(quote(w) for ws in q.corrections.values() for w in ws)
        found = self.queries.run(conn, fixes, req, fetch)
        found += self.queries.run(conn, f"({fixes}) AND ({q.expr})", req, fetch)
        base = set(scores)
        for r in found:
            penalised = r.score * self.config.search.ranking.typo_penalty
            prev = scores.get(r.id)
            if prev is None or penalised > prev.score:
                scores[r.id] = Scored(penalised, r.id not in base, r)

    def _add_bonuses(
        self,
        conn: sqlite3.Connection,
        q: QueryPlan,
        budget: Plan,
        scores: Scores,
        req: SearchRequest,
        fetch: int,
    ) -> None:
        s = self.config.search

        def run(groups: list[str]) -> list[Row]:
            return self.queries.run(conn, " OR ".join(groups), req, fetch)

        def run_held(groups: list[str]) -> list[Row]:
            """Feedback words, held to the posting budget like the query's own."""
            budget = s.ranking.posting_budget
            memo = self.planner.group_counts.current(self.index.reader_token())
            held = held_to_budget(conn, groups, budget, self.index.note_count_cached(), memo)
            return run(held) if held else []

        stopwords = self.planner.stopwords
        if s.ranking.phrase_weight > 0:
            # Pairs match no more notes than their words: within the budget when the words
            # are (words the budget left out take their pairs with them).
            pairs = adjacent_pairs(req.query, stopwords)
            if budget.cut:
                # A pair needs one searched word: FTS5 weighs a phrase by walking the notes
                # that hold it, which is quick when one of its words is rare and slow when
                # both are common ("vulnerability in": 20 ms on the CVE corpus).
                kept = {c.single for c in q.chunks if c.single is not None}
                pairs = [p for p in pairs if set(p.split(" ")) & kept]
            add_phrase_bonus(scores, pairs, s, run)
        # A query the budget had to cut gets no feedback words: they would bring back the
        # rows it just left out (20 ms of a 100 ms sentence-long query on the CVE corpus).
        feedback = not budget.cut and s.ranking.feedback_terms > 0
        if feedback and len(q.chunks) >= s.ranking.feedback_min_words:
            asked = {t for c in q.chunks for t in c.tokens} | stopwords
            add_feedback(conn, scores, asked, self.vocab, self.index, s, run_held)

    # -- page --------------------------------------------------------------------------------

    def _page(
        self, conn: sqlite3.Connection, q: QueryPlan, scores: Scores, req: SearchRequest
    ) -> SearchOutcome:
        """Best first; protected notes hidden (and counted); at most ``folder_cap`` hits per
        folder before the others had their turn; frontmatter and snippets for the page."""
        shown, hidden = shown_best_first(scores.values(), req.visible)
        best = diversify(shown, self.config.search.folder_cap, _folder_of)[: req.limit]
        ids = [v.row.id for v in best]
        snippets = self._snippets(conn, ids, q.terms())
        page = [
            SearchHit(
                r.path,
                r.title,
                significant(score),
                snippets.get(r.id, ""),
                r.folder,
                frontmatter_of(r),
            )
            for score, _, r in best
        ]
        corrections = q.corrections
        if req.visible is not None and corrections:
            corrections = self.queries.shown_corrections(conn, corrections, ids)
        return SearchOutcome(
            page,
            self.name,
            hidden=hidden,
            corrections={q.chunks[i].tokens[0]: v for i, v in corrections.items()},
        )

    def _snippets(
        self, conn: sqlite3.Connection, ids: list[int], terms: list[str]
    ) -> dict[int, str]:
        """Snippets cut from each hit's original body text (see :mod:`hoard.core.snippet`),
        by row id."""
        if not ids:
            return {}
        width = self.config.search.snippet_chars
        return {
            rowid: best_window(body or "", terms, width)
            for rowid, body in self.queries.bodies(conn, ids)
        }


def _folder_of(v: Scored) -> str:
    return v.row.folder


def frontmatter_of(row: Row) -> dict[str, Any] | None:
    """The bounded frontmatter the index keeps for a hit (as JSON), parsed."""
    parsed: dict[str, Any] | None = json.loads(row.fm_json) if row.fm_json else None
    return parsed


Refine = Callable[[Scores], None]


def _within(clock: Clock, scores: Scores, step: Refine) -> Scores:
    """``step`` applied to a copy of ``scores``, or ``scores`` unchanged when the budget is
    spent before or during it (a step cut halfway would leave a skewed ranking)."""
    if clock.skip():
        return scores
    trial = dict(scores)
    try:
        step(trial)
    except sqlite3.OperationalError as exc:
        if not is_interrupt(exc):
            raise
        clock.hit = True
        return scores
    return trial


def _short(scores: Scores, req: SearchRequest) -> bool:
    """Do the exact matches the caller may see leave the page short of its limit?"""
    return _seen(scores, req) < req.limit


def _seen(scores: Scores, req: SearchRequest) -> int:
    """How many of the scored notes the caller may see."""
    seen = req.visible
    return sum(1 for v in scores.values() if seen is None or seen(v.row.path))
