"""The shapes a search passes around: the request, a scored index row, and the outcome."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from hoard.core.choices import SearchEngine, SearchMode
from hoard.core.filters import Filters
from hoard.core.models import SearchHit
from hoard.core.reach import counts_as_hidden

Visible = Callable[[str], bool]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    limit: int = 10
    folder: str | None = None
    mode: SearchMode = "natural"
    visible: Visible | None = None
    filters: Filters | None = None
    """Field filters, applied inside every query (:mod:`hoard.adapters.search.filtered`)."""
    semantic: Future[list[tuple[str, float]]] | None = None
    """The semantic side's top notes ``(path, cosine)``, limited to what the caller may see
    in ``folder``: blended into the ranking with ``semantic_weight`` as the lexical share.
    Being found while the lexical side runs; the blend waits for them."""
    semantic_weight: float = 1.0
    semantic_asked: int = 0
    """How many notes the semantic side asked for: the lexical side fetches as many."""
    deadline: float | None = None
    """``time.monotonic()`` past which the search stops and answers with what it has."""


class Row(NamedTuple):
    """One note as a ranking query returns it (see ``FtsQueries``)."""

    id: int
    path: str
    title: str
    folder: str
    fm_json: str | None
    score: float
    """BM25 times ``mult``, higher is better."""
    mult: float
    """The note's folder multiplier (``folder_weights``), already in ``score``."""


class Scored(NamedTuple):
    """A note's score so far; ``typo_only`` when only a typo correction found it."""

    score: float
    typo_only: bool
    row: Row


Scores = dict[int, Scored]
"""Scored notes by their index row id."""


@dataclass(slots=True)
class SearchOutcome:
    hits: list[SearchHit]
    engine: SearchEngine
    hidden: int = 0
    error: str | None = None
    corrections: dict[str, list[str]] = field(default_factory=dict)
    timed_out: bool = False
    """The time budget ran out: the hits are what was found before it did."""
    common_kept: list[str] = field(default_factory=list)
    """Common words searched after all because the query without them found too little."""
    blended: bool = False
    """The semantic side's notes were blended into the ranking (not skipped by the budget)."""


def shown_best_first(scored: Iterable[Scored], visible: Visible | None) -> tuple[list[Scored], int]:
    """The scored notes the caller may see, best first (ties by path), and how many it may
    not."""
    ranked = sorted(scored, key=lambda v: (-v.score, v.row.path))
    if visible is None:
        return ranked, 0
    shown = [v for v in ranked if visible(v.row.path)]
    hidden = sum(
        1 for v in ranked if not visible(v.row.path) and counts_as_hidden(visible, v.row.path)
    )
    return shown, hidden


def diversify(items: list[T], cap: int, folder: Callable[[T], str]) -> list[T]:
    """At most ``cap`` items per folder before every other folder had its turn; extra items
    move below, in their order, and are never dropped."""
    first, later = folder_turns(items, cap, folder)
    return first + later


def folder_turns(items: list[T], cap: int, folder: Callable[[T], str]) -> tuple[list[T], list[T]]:
    """``items`` split, in their order, into the first ``cap`` of each folder and the rest."""
    seen: dict[str, int] = {}
    first: list[T] = []
    later: list[T] = []
    for item in items:
        f = folder(item)
        n = seen.get(f, 0)
        (first if n < cap else later).append(item)
        seen[f] = n + 1
    return first, later


def significant(score: float) -> float:
    """Six significant digits: BM25 gives words in most notes a tiny IDF, and rounding to
    decimal places would flatten those scores to zero."""
    return float(f"{score:.6g}")
