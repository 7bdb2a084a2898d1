"""Finding notes by their fields: ``vault_search`` with ``filters`` and no query
lists the matching notes, newest ``updated`` first, paged; ``vault_tags`` counts tags. Both
answer from the index and see only what the caller may see (protected notes are left out
before anything is counted)."""

from __future__ import annotations

import time
from dataclasses import replace

from hoard.adapters.search.filtered import FieldIndex, Visible
from hoard.app.deps import Deps
from hoard.app.freshness import IndexKeeper
from hoard.app.honesty import Budget, Honesty
from hoard.core.choices import SearchEngine
from hoard.core.errors import InvalidArgument
from hoard.core.filters import Filters
from hoard.core.models import SearchHit, SearchResult, TagCount, TagsResult
from hoard.core.paths import normalize_rel_path
from hoard.core.policy import Caller
from hoard.core.result_warnings import FiltersNotAppliedWarning, ResultWarning

ENGINE: SearchEngine = "index"
"""``engine`` of a listing: the index's field columns answered, no ranking."""


def checked_offset(offset: object) -> int:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument("offset must be a whole number of at least 0")
    return offset


def unfiltered(filters: Filters | None, error: str | None) -> list[ResultWarning]:
    """A warning when the substring fallback answered a filtered search (it cannot filter)."""
    if filters is None or error is None:
        return []
    return [
        FiltersNotAppliedWarning(
            kind="filters_not_applied",
            message="the index could not answer, so the filters were not applied",
        )
    ]


class FieldListing:
    def __init__(self, deps: Deps, keeper: IndexKeeper, honesty: Honesty) -> None:
        self.deps = deps
        self.keeper = keeper
        self.honesty = honesty
        self.index = FieldIndex(deps.index, deps.config.search.snippet_chars)

    def listing(
        self,
        query: str,
        limit: int,
        folder: str | None,
        filters: Filters,
        offset: int,
        visible: Visible | None,
        t0: float,
        *,
        caller: Caller,
    ) -> SearchResult:
        self.keeper.ensure_fresh()
        page, hidden, next_offset = self.index.listing(filters, folder, visible, limit, offset)
        hits = [SearchHit(n.path, n.title, 0.0, n.snippet, n.folder, n.frontmatter) for n in page]
        warned = self.honesty.warnings_for([h.path for h in hits], Budget(), caller=caller)
        hits = [replace(h, warnings=[*warned[h.path]]) if h.path in warned else h for h in hits]
        return SearchResult(
            query=query,
            engine=ENGINE,
            error=None,
            contested=False,
            reranked=False,
            hidden_protected=hidden,
            took_ms=round((time.perf_counter() - t0) * 1000, 3),
            results=hits,
            next_offset=next_offset,
        )

    def tags(self, folder: str | None = None, *, caller: Caller) -> TagsResult:
        """Every tag with how many notes the caller can see carry it, most used first."""
        self.deps.access.require("read", caller=caller)
        if folder is not None and not isinstance(folder, str):
            raise InvalidArgument("folder must be a string")
        rel = (normalize_rel_path(folder, allow_root=True) or None) if folder else None
        self.keeper.ensure_fresh()
        counted = self.index.tags(self.deps.access.visibility(caller=caller), rel)
        return TagsResult([TagCount(t, n, src) for t, n, src in counted], rel)
