"""The notes holding every group of a query whose every group is common.

The posting budget (:mod:`hoard.adapters.search.budget`) ANDs a query's groups when each
alone matches more notes than the budget. On a vault of 250,000 notes even the AND of two
common words can hold 35,000 notes, and FTS5 has no top-k pruning: BM25 weighs every one of
them (about 3 µs a note, 100-200 ms a query) to keep ten, after walking each word's whole
list once to weigh the word itself (5-12 ms for a word in 100,000 notes). So the page is
filled in tiers, each cheaper than the full weighing, until it is full:

1. **Title and tags**: the notes holding every group in their title (aliases included) or
   tags, found in the small ``titles`` table, whose lists hold only title and tag words
   (about 1 ms). When every word is this common, a note named by them is the likeliest
   answer: a title typed from memory is answered here.
2. When no more notes than the budget hold every group: all of them, weighed by BM25.
   Otherwise:

   a. **Close together**: the notes holding the words within :data:`NEAR_TOKENS` tokens
      of each other, when each group is one word or phrase (FTS5's ``NEAR`` takes no
      alternatives, so a folded or corrected word skips this tier);
   b. **The rest, most recently indexed first**: BM25 of at most :data:`RECENT_WINDOW`
      of them, newest row ids first (an edited note is indexed anew).

Each tier ranks its notes by its own BM25; a later tier's scores are scaled to stay below
the earlier tier's lowest, so scores still descend down the list.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from hoard.adapters.search.budget import GroupCounter, Memo
from hoard.adapters.search.types import Row

NEAR_TOKENS = 10
"""How close the words of the second tier must be: about a sentence."""
RECENT_WINDOW = 1000
"""How many notes the third tier weighs at most (or the budget, if smaller): enough to fill
a page, and BM25 of a window costs about 6.5 µs a note on top of weighing the words once
(15 ms for two words in 35,000 notes of the 250k generated vault)."""

Run = Callable[[str], list[Row]]
RunWindow = Callable[[str, int], list[Row]]


def conjunctive_rows(
    conn: sqlite3.Connection,
    groups: Sequence[str],
    budget: int,
    limit: int,
    run: Run,
    run_titles: Run,
    run_window: RunWindow,
    memo: Memo | None = None,
) -> list[Row]:
    """Scored rows (best first) of notes holding every one of ``groups`` (FTS5 groups, as
    :func:`hoard.core.query.build_groups` makes them, without prefixes). ``run(expr)`` scores
    the notes matching ``expr``, ``run_titles(expr)`` those whose title or tags match it;
    ``run_window(expr, n)`` scores only the ``n`` most recently indexed of them; ``memo``
    keeps the bounded count of the AND across searches."""
    expr = " AND ".join(groups)
    out = _fill([], [lambda: run_titles(expr)], limit)
    if len(out) >= limit:
        return out
    if GroupCounter(conn, budget + 1, memo).count(expr) <= budget:
        return _fill(out, [lambda: run(expr)], limit)
    tiers: list[Callable[[], list[Row]]] = []
    # A group without alternatives is one quoted word or phrase, all NEAR takes.
    if len(groups) > 1 and not any(g.startswith("(") for g in groups):
        near = f"NEAR({' '.join(groups)}, {NEAR_TOKENS})"
        tiers.append(lambda: run(near))
    tiers.append(lambda: run_window(expr, min(budget, RECENT_WINDOW)))
    return _fill(out, tiers, limit)


def _fill(out: list[Row], tiers: Sequence[Callable[[], list[Row]]], limit: int) -> list[Row]:
    """``out`` and the rows of each tier in turn that are not in it yet, each tier's scores
    kept under the last row's, until there are ``limit`` rows or no tiers left."""
    seen = {r.id for r in out}
    for tier in tiers:
        if len(out) >= limit:
            break
        rows = [r for r in tier() if r.id not in seen]
        if out and rows:
            rows = _below(rows, out[-1].score)
        out = out + rows
        seen.update(r.id for r in rows)
    return out


def _below(rows: list[Row], ceiling: float) -> list[Row]:
    """``rows`` (best first) with scores scaled so the best is just under ``ceiling``,
    keeping their order and proportions."""
    top = rows[0].score
    if top < ceiling or top <= 0:
        return rows
    factor = ceiling / top * 0.999
    return [r._replace(score=r.score * factor) for r in rows]
