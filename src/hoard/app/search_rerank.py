"""Wiring the optional rerank step into a search: when it runs, what the model
sees, and how the page looks afterwards."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from hoard.adapters.index.lookups import Reader, opening_texts
from hoard.adapters.search.rerank import MAX_TEXT_CHARS, Reranker, RerankFailed, rerank_shortlist
from hoard.app.access import Visible
from hoard.core.choices import RerankChoice, SearchEngine
from hoard.core.models import SearchHit
from hoard.core.result_warnings import RerankUnavailableWarning, ResultWarning

log = logging.getLogger("hoard.rerank")

CONTESTED_SHARE = 0.9
"""The top is contested when the second score is within this share of the best."""


def is_contested(hits: list[SearchHit]) -> bool:
    return len(hits) >= 2 and hits[1].score >= CONTESTED_SHARE * hits[0].score


RERANKED: dict[SearchEngine, SearchEngine] = {
    "fts5": "fts5+rerank",
    "fts5+semantic": "fts5+semantic+rerank",
}
"""The engines whose answer may be reranked, and what answered once it was."""


def should_rerank(mode: RerankChoice, contested: bool, engine: SearchEngine) -> bool:
    """``auto`` reranks a contested top only; ``on`` always (when a model is configured);
    ``off`` never. A substring-fallback answer is never reranked."""
    if engine not in RERANKED or mode == "off":
        return False
    return mode == "on" or contested


def rerank_hits(
    reranker: Reranker,
    reader: Reader,
    query: str,
    hits: list[SearchHit],
    shortlist: int,
    is_private: Callable[[str], bool],
) -> list[SearchHit]:
    """The page with its first ``shortlist`` hits in the model's order. Each hit takes the
    score of the slot it lands in, so scores still descend down the page. Raises
    :class:`~hoard.adapters.search.rerank.RerankFailed` when the model gives no usable answer."""
    head, tail = hits[:shortlist], hits[shortlist:]
    texts = opening_texts(
        reader(), [h.path for h in head if not is_private(h.path)], MAX_TEXT_CHARS
    )
    order = rerank_shortlist(
        reranker,
        query,
        head,
        lambda h: texts.get(h.path, h.snippet if h.kind == "attachment" else h.title),
        lambda h: is_private(h.path),
    )
    slot_scores = [h.score for h in head]
    moved = [replace(h, score=score) for h, score in zip(order, slot_scores, strict=True)]
    return moved + tail


@dataclass
class Step:
    """What the rerank step made of a page."""

    hits: list[SearchHit]
    engine: SearchEngine
    reranked: bool = False
    error: str | None = None
    warnings: list[ResultWarning] = field(default_factory=list)
    dropped: int = 0
    """Hits the caller could see when the search began but no longer can (a grant expired
    during the request): left out of the page and never sent to the model."""


def still_seen(hits: list[SearchHit], visibility_now: Visible | None) -> list[SearchHit]:
    """The hits the caller may still see, by visibility decided at this moment."""
    if visibility_now is None:
        return hits
    return [h for h in hits if visibility_now(h.path)]


def rerank_step(
    reranker: Reranker | None,
    mode: RerankChoice,
    contested: bool,
    engine: SearchEngine,
    reader: Reader,
    query: str,
    hits: list[SearchHit],
    shortlist: int,
    is_private: Callable[[str], bool],
    visibility_now: Callable[[], Visible | None] = lambda: None,
) -> Step:
    """Rerank the page when a model is configured and :func:`should_rerank` says so. A
    failing model leaves the BM25 order and says why in ``error``; asking for ``on``
    without a model says so in a warning.

    Visibility was decided when the search began; texts leave hoard only for hits the
    caller may still see when they are sent (``visibility_now()``, asked just before),
    and a hit that became invisible meanwhile is dropped from the page as well."""
    if reranker is None:
        step = Step(hits, engine)
        if mode == "on":
            step.warnings.append(
                RerankUnavailableWarning(
                    kind="rerank_unavailable", message="no rerank model is configured"
                )
            )
        return step
    if not should_rerank(mode, contested, engine):
        return Step(hits, engine)
    seen = still_seen(hits, visibility_now())
    dropped = len(hits) - len(seen)
    try:
        order = rerank_hits(reranker, reader, query, seen, shortlist, is_private)
    except RerankFailed as exc:
        log.warning("rerank failed: %s", exc)
        return Step(seen, engine, error=f"{exc}; the BM25 order stands", dropped=dropped)
    return Step(order, RERANKED[engine], reranked=True, dropped=dropped)
