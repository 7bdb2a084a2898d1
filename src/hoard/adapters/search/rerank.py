"""The optional rerank step: a configured model endpoint reorders a contested shortlist.

The endpoint speaks the ``/rerank`` shape of Hugging Face text-embeddings-inference: hoard
POSTs ``{"query": "...", "texts": ["...", ...]}`` and reads back either a list of
``{"index": i, "score": s}`` (text-embeddings-inference) or ``{"results": [{"index": i,
"relevance_score": s}]}`` (the Cohere and Jina shape). Any failure (refused connection,
timeout, an HTTP error, a reply of the wrong shape) is a :class:`RerankFailed`; the caller
keeps the BM25 order and says why.

Private notes are never sent: they keep their slot in the page, and only the other notes
of the shortlist are reordered among the remaining slots.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

MAX_TEXT_CHARS = 2000
"""What the model sees of a note: its title and the start of its body, this many characters."""

T = TypeVar("T")


class RerankFailed(Exception):
    """The endpoint gave no usable scores; the message says why, for the result's error."""


class Reranker(Protocol):
    def scores(self, query: str, texts: Sequence[str]) -> list[float]: ...


class HttpReranker:
    """A rerank endpoint over HTTP(S), one POST per search, bounded by ``timeout_s``."""

    def __init__(self, url: str, timeout_s: float) -> None:
        self.url = url
        self.timeout_s = timeout_s

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        # Loaded here, not with the module: only a configured endpoint needs an HTTP client.
        import urllib.error
        import urllib.request

        body = json.dumps({"query": query, "texts": list(texts)}).encode("utf-8")
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read(1 << 20)
        except urllib.error.HTTPError as exc:
            raise RerankFailed(f"rerank endpoint answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise RerankFailed(f"rerank endpoint unreachable: {reason}") from exc
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise RerankFailed("rerank endpoint sent something that is not JSON") from exc
        return parse_scores(data, len(texts))


def parse_scores(data: Any, n: int) -> list[float]:
    """Scores by text index from either reply shape; every text must get a finite score."""
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise RerankFailed("rerank reply is neither a list nor has a results list")
    out: list[float | None] = [None] * n
    for item in items:
        if not isinstance(item, dict):
            raise RerankFailed("rerank reply item is not an object")
        index = item.get("index")
        score = item.get("score", item.get("relevance_score"))
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise RerankFailed(f"rerank reply has a bad index: {index!r}")
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
        ):
            raise RerankFailed(f"rerank reply has a bad score for text {index}")
        out[index] = float(score)
    missing = [i for i, s in enumerate(out) if s is None]
    if missing:
        raise RerankFailed(f"rerank reply left {len(missing)} of {n} texts without a score")
    return [s for s in out if s is not None]


def rerank_shortlist(
    reranker: Reranker,
    query: str,
    shortlist: list[T],
    text_of: Callable[[T], str],
    is_private: Callable[[T], bool],
) -> list[T]:
    """The shortlist in the model's order. Private items are not sent and stay where they
    were; the others fill the remaining slots, best model score first (ties keep their BM25
    order). Raises :class:`RerankFailed` when the model gives no usable answer."""
    movable = [i for i, item in enumerate(shortlist) if not is_private(item)]
    if len(movable) < 2:
        return list(shortlist)
    texts = [text_of(shortlist[i])[:MAX_TEXT_CHARS] for i in movable]
    scores = reranker.scores(query, texts)
    ranked = sorted(range(len(movable)), key=lambda k: (-scores[k], k))
    out = list(shortlist)
    for slot, k in zip(movable, ranked, strict=True):
        out[slot] = shortlist[movable[k]]
    return out
