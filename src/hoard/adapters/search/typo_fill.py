"""Typo fill : a word that matches something is never corrected, so
``marlin`` finds the note about marlins but never the one about Merlin. When the exact
matches leave the page short of its limit, the close spellings (one or two edits, scaled to
the word's length, as for a word that matches nothing) of the query's words that did match
are searched too, and their notes fill the page below every exact match."""

from __future__ import annotations

from collections.abc import Callable

from hoard.adapters.search.types import Row, Scored, Scores
from hoard.core.config import SearchConfig
from hoard.core.query import Chunk, max_edits, quote

CorrectFn = Callable[[str, int], list[str]]


def fill_with_typos(
    chunks: list[Chunk],
    expanded: set[int],
    correct: CorrectFn,
    config: SearchConfig,
    run: Callable[[str], list[Row]],
    scores: Scores,
) -> dict[int, list[str]]:
    """Add the notes found only through close spellings of the words at indices not in
    ``expanded`` to ``scores``, each below the lowest exact score; the corrections used."""
    fixes: dict[int, list[str]] = {}
    for i, chunk in enumerate(chunks):
        term = chunk.single
        if i in expanded or term is None or chunk.alternatives:
            continue
        two_edits = config.ranking.typo_two_edits_length
        words = correct(term, max_edits(term, config.typo_min_length, two_edits))
        if words:
            fixes[i] = words
    if not fixes:
        return {}
    found = run(" OR ".join(quote(w) for ws in fixes.values() for w in ws))
    rows = [r for r in found if r.id not in scores]
    if not rows:
        return {}
    floor = min((v.score for v in scores.values()), default=1.0) * config.ranking.typo_penalty
    best = max(r.score for r in rows) or 1.0
    for r in rows:
        scores[r.id] = Scored(floor * r.score / best, True, r)
    return fixes
