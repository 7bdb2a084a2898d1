"""How much of a natural-mode query to search among attachment pages, and when not to.

Ranking a page costs FTS5 a BM25 over it, and attachment pages are long: a query whose
words are on hundreds of pages ranks every one of them. Three bounds, each resting on one
cheap fact per phrase (how many pages hold it, counted with a ``LIMIT``):

- **Common words** and the **posting budget** (``RankingSettings.common_share`` and
  ``posting_budget``), as for notes (:mod:`hoard.adapters.search.budget`): in a query of
  several words, a word on more than that share of the pages is left out; when the groups
  together match more pages than the budget, only the rarest that fit are searched.
- **Score ceiling**: FTS5's BM25 of a page is below ``(k1 + 1) * idf`` summed over the
  query's phrases (``k1 = 1.2``; each phrase's term ``idf * tf * (k1 + 1) / (tf + k1 *
  (1 - b + b * len / avglen))`` stays under ``idf * (k1 + 1)`` whatever the page). When
  the notes already fill the page with hits that score above that, no attachment can make
  it and the pages are not ranked at all. A rare word has a large IDF, so a query with one
  always searches the pages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hoard.core.query import within_budget
from hoard.core.ranking import RankingSettings

BM25_K1 = 1.2
"""FTS5's ``bm25()`` constant (fixed in SQLite)."""

COMMON_MIN_PAGES = 50
"""Fewer pages than this: no word is common (a share of a handful of pages says little)."""


@dataclass(frozen=True, slots=True)
class PagePlan:
    kept: list[int]
    """The groups searched (indices into the query's groups, in order)."""
    ceiling: float
    """No page can score more than this for the kept groups (0.0: none matches at all)."""


def count_cap(ranking: RankingSettings, pages: int) -> int:
    """Where a phrase's page count may stop: a little above the budget (a larger count
    changes neither the plan nor, by much, the ceiling), else every page."""
    budget = ranking.posting_budget
    return min(budget + 1, pages) if budget > 0 else pages


def plan_pages(
    groups: Sequence[Sequence[str]],
    counts: Sequence[Sequence[int]],
    pages: int,
    cap: int,
    ranking: RankingSettings,
) -> PagePlan:
    """Which groups to search, given each group's phrases (FTS5 strings) and their page
    counts (each stopped at ``cap``) among ``pages`` pages, and the ceiling of a page's
    score for them. Only a group of one word can be common (never a phrase or a word with
    other spellings)."""
    every = list(range(len(counts)))
    words = [len(g) == 1 and " " not in g[0] for g in groups]
    sizes = [min(sum(c), cap) for c in counts]
    common = ranking.common_share * pages
    kept = every
    if len(counts) > 1 and ranking.common_share < 1.0 and pages >= COMMON_MIN_PAGES:
        # A group of one phrase (a word) whose count stopped at the cap is common only
        # when the cap itself is over the share.
        kept = [i for i in every if not words[i] or sizes[i] <= common] or every
    if ranking.posting_budget > 0 and len(kept) > 1:
        chosen = within_budget([sizes[i] for i in kept], ranking.posting_budget)
        kept = [kept[j] for j in chosen]
    ceiling = sum(_idf(n, pages) for i in kept for n in counts[i] if n > 0)
    return PagePlan(kept, ceiling * (BM25_K1 + 1))


def _idf(hits: int, pages: int) -> float:
    """FTS5's IDF of a phrase on ``hits`` of ``pages`` pages (at least 1e-6, as FTS5 has
    it). A count stopped at the cap is a lower bound of the true one, so its IDF is an
    upper bound of the true IDF: the ceiling stays a ceiling."""
    idf = math.log((pages - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0 else 1e-6
