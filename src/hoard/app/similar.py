"""vault_similar: the notes nearest in meaning to a note, by the vectors of the
semantic model. For "what else did I write about this", link suggestions and duplicate
hints. A caller never learns of a protected note it may not see, in either direction."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from hoard.adapters.index.lookups import indexed_among, is_indexed, titles_and_folders
from hoard.adapters.semantic.service import Semantic
from hoard.app.deps import Deps
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.models import SimilarHit, SimilarResult
from hoard.core.note import parse_note
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller
from hoard.core.result_warnings import SemanticUnavailableWarning
from hoard.core.semantic import embedding_text

log = logging.getLogger("hoard.semantic")

MAX_LIMIT = 100

DUPLICATE_SIMILARITY = 0.8
"""The cosine from which a write's preflight names an existing note as a possible duplicate.
On all-MiniLM-L6-v2 a note and its rewording score 0.85-0.87, notes on one topic that say
different things 0.5-0.72, unrelated notes below 0.4 (measured on the test vault's texts)."""


@dataclass(frozen=True, slots=True)
class VectorBuild:
    """What bringing the vectors up to date did (``hoard index`` prints it)."""

    embedded: int
    vectors: int
    notes: int
    seconds: float
    skipped: str | None = None
    """Why nothing was embedded: the runtime is not installed, the model did not load."""


class Similar:
    def __init__(self, deps: Deps, semantic: Semantic | None) -> None:
        self.deps = deps
        self.semantic = semantic

    def build(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every note whose vector is missing or stale, here and now (a one-shot
        process; a server does it in the background); how many were embedded."""
        if self.semantic is None:
            return 0
        self.deps.ensure_fresh()
        return self.semantic.catch_up(progress)

    def build_vectors(
        self, progress: Callable[[int, int], None] | None = None
    ) -> VectorBuild | None:
        """:meth:`build` with a report; ``None`` when semantic search is off. Resumable: the
        vectors are committed in small batches, an interrupted build goes on next time."""
        if self.semantic is None:
            return None
        t0 = time.perf_counter()
        embedded = self.build(progress)
        status = self.semantic.status()
        seconds = round(time.perf_counter() - t0, 2)
        return VectorBuild(
            embedded=embedded,
            vectors=status.embedded,
            notes=status.notes,
            seconds=seconds,
            skipped=status.error,
        )

    def near_duplicates(self, rel: str, raw: bytes, limit: int, *, caller: Caller) -> list[str]:
        """Existing notes whose vector is within :data:`DUPLICATE_SIMILARITY` of the text
        ``raw`` would give the note at ``rel``, nearest first, at most ``limit``: the write
        preflight's semantic duplicate hints. Only notes the caller may see (search's rule:
        no protected note without a grant, no private one for a caller who may not see it),
        never ``rel`` itself. Empty when semantic search is off, the model is not loaded or
        no vector exists yet: a hint never fails or slows a preflight by a model load in a
        server (a one-shot process loads it when vectors exist)."""
        if self.semantic is None or not self.semantic.has_vectors():
            return []
        try:
            self.semantic.prepare()
            doc = parse_note(rel, raw, self.deps.config.search.title_keys)
            text = embedding_text(doc.title, doc.body, self.deps.config.semantic.text_chars)
            seen = self.deps.access.visibility(caller=caller)
            near = self.semantic.near(text, limit, lambda p: p != rel and (seen is None or seen(p)))
        except Exception as exc:  # a hint must never fail the dry run it decorates
            log.warning("semantic duplicate hints failed: %s", exc)
            return []
        close = [p for p, score in near or [] if score >= DUPLICATE_SIMILARITY]
        return self.deps.from_index(lambda: self._indexed(close), lambda: close)

    def _indexed(self, paths: list[str]) -> list[str]:
        """``paths`` that are notes in the index now (a vector may outlive its note until
        the builder's next pass), in their order."""
        if not paths:
            return []
        found = indexed_among(self.deps.index.reader(), paths)
        return [p for p in paths if p in found]

    def similar(self, path: str, limit: int = 10, *, caller: Caller) -> SimilarResult:
        t0 = time.perf_counter()
        self.deps.access.require("read", caller=caller)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidArgument(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        rel = normalize_note_path(path)
        self.deps.access.check_visible(rel, caller=caller)
        self.deps.ensure_fresh()
        conn = self.deps.index.reader()
        if not is_indexed(conn, rel):
            raise NotFound(f"no note at {rel!r}", path=rel)
        if self.semantic is None:
            return self._none(rel, t0, "semantic search is off ([semantic] enabled = false)")
        self.semantic.prepare()
        near = self.semantic.similar(rel, limit, self.deps.access.visibility(caller=caller))
        if near is None:
            status = self.semantic.status()
            return self._none(rel, t0, status.error or f"the model is {status.state}")
        rows = titles_and_folders(conn, [p for p, _ in near])
        hits = [
            SimilarHit(p, rows[p][0], round(score, 6), rows[p][1]) for p, score in near if p in rows
        ]
        return SimilarResult(rel, "semantic", _ms(t0), hits)

    @staticmethod
    def _none(rel: str, t0: float, why: str) -> SimilarResult:
        warning = SemanticUnavailableWarning(kind="semantic_unavailable", message=why)
        return SimilarResult(rel, "none", _ms(t0), [], [warning])


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
