"""As-you-type search (``mode="typeahead"``): the quick switcher's job. Every typed word is
required, the last one as a prefix from its first letter; notes whose title, aliases or tags
match come first (from the small ``titles`` table), then notes matching anywhere else."""

from __future__ import annotations

import sqlite3

from hoard.adapters.search.plan import QueryPlan
from hoard.adapters.search.queries import FtsQueries
from hoard.adapters.search.types import Scored, Scores, SearchRequest
from hoard.core.query import parse_natural, typeahead_expression

TITLE_FIRST = 1_000_000.0
"""Added to a title match's score: every one ranks above every note matching elsewhere."""


def typeahead(
    conn: sqlite3.Connection, queries: FtsQueries, req: SearchRequest, fetch: int
) -> tuple[QueryPlan, Scores] | None:
    """The plan (for snippets) and the scores of a typeahead query; ``None`` without words.
    The body pass runs only when the titles leave the page short."""
    chunks = parse_natural(req.query, frozenset())
    if not chunks:
        return None
    scores: Scores = {}
    if not any(c.runs for c in chunks):
        for r in queries.run_titles(conn, typeahead_expression(chunks, False), req, fetch):
            scores[r.id] = Scored(r.score + TITLE_FIRST, False, r)
    expr = typeahead_expression(chunks, True)
    if len(scores) < req.limit:
        for r in queries.run(conn, expr, req, fetch):
            if r.id not in scores:
                scores[r.id] = Scored(r.score, False, r)
    return QueryPlan(chunks, expr), scores
