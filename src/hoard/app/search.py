"""vault_search: validate the arguments, ask the searcher (or the labeled
substring scan when the index fails), the optional rerank step, synthesis warnings on the
page, typo corrections in the answer."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import cast

from hoard.adapters.search.fallback import SubstringSearcher
from hoard.adapters.search.fts import Fts5Searcher
from hoard.adapters.search.rerank import Reranker
from hoard.adapters.search.types import SearchOutcome, SearchRequest
from hoard.adapters.semantic.service import Semantic
from hoard.adapters.store_errors import StoreError
from hoard.app.access import Visible
from hoard.app.deps import Deps
from hoard.app.fields import FieldListing, checked_offset, unfiltered
from hoard.app.freshness import IndexKeeper
from hoard.app.honesty import Budget, Honesty
from hoard.app.search_attachments import with_attachments
from hoard.app.search_rerank import Step, is_contested, rerank_step
from hoard.app.search_semantic import Side, checked_choice, semantic_side
from hoard.core.choices import RerankChoice, SearchMode, SemanticChoice, refuse_unless_one_of
from hoard.core.errors import BadQuery, HoardError, InvalidArgument, Unavailable
from hoard.core.filters import Filters, parse_filters
from hoard.core.models import SearchHit, SearchResult
from hoard.core.paths import normalize_rel_path
from hoard.core.policy import Caller
from hoard.core.query import MAX_QUERY_CHUNKS, words_of
from hoard.core.result_warnings import (
    STORE_UNAVAILABLE,
    CommonWordsKeptWarning,
    QueryTruncatedWarning,
    ResultWarning,
    TypoCorrectionsWarning,
    time_budget_warning,
)

log = logging.getLogger("hoard")

MAX_LIMIT = 100


@dataclass(frozen=True, slots=True)
class SearchArgs:
    query: str
    limit: int
    folder: str | None
    mode: SearchMode
    rerank: RerankChoice


def checked_args(
    query: object, limit: object, folder: object, mode: object, rerank: object
) -> SearchArgs:
    """The arguments of a search, or :class:`InvalidArgument` naming the bad one."""
    if not isinstance(query, str):
        raise InvalidArgument("query must be a string")
    refuse_unless_one_of("mode", mode, SearchMode)
    refuse_unless_one_of("rerank", rerank, RerankChoice)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    if folder is not None and not isinstance(folder, str):
        raise InvalidArgument("folder must be a string")
    folder_rel = normalize_rel_path(folder, allow_root=True) if folder else None
    return SearchArgs(
        query=query,
        limit=limit,
        folder=folder_rel or None,
        mode=cast(SearchMode, mode),
        rerank=cast(RerankChoice, rerank),
    )


class SearchFlow:
    def __init__(
        self,
        deps: Deps,
        keeper: IndexKeeper,
        searcher: Fts5Searcher,
        fallback: SubstringSearcher,
        reranker: Reranker | None,
        honesty: Honesty,
        semantic: Semantic | None = None,
    ) -> None:
        self.deps = deps
        self.keeper = keeper
        self.searcher = searcher
        self.fallback = fallback
        self.reranker = reranker
        self.honesty = honesty
        self.fields = FieldListing(deps, keeper, honesty)
        self.semantic = semantic

    @property
    def _budget_ms(self) -> int:
        return self.deps.config.limits.request_time_ms

    def search(
        self,
        query: str,
        limit: int = 10,
        folder: str | None = None,
        mode: SearchMode = "natural",
        rerank: RerankChoice = "auto",
        visible: Visible | None = None,
        *,
        caller: Caller,
        filters: object = None,
        offset: int = 0,
        semantic: SemanticChoice | bool = "auto",
    ) -> SearchResult:
        t0 = time.perf_counter()
        self.deps.access.require("read", caller=caller)
        args = checked_args(query, limit, folder, mode, rerank)
        capped = term_cap_warnings(args, self.deps.config.limits.query_max_terms)
        flt, offset = parse_filters(filters), checked_offset(offset)
        if flt is not None and not args.query.strip():
            seen = self._visible(caller, visible)
            return self.fields.listing(
                args.query, args.limit, args.folder, flt, offset, seen, t0, caller=caller
            )
        reranker = self.reranker if args.rerank != "off" else None
        fetch = max(args.limit, self.deps.config.rerank.shortlist) if reranker else args.limit
        allowed = self._visible(caller, visible)
        side = self._semantic_side(args, checked_choice(semantic), allowed)
        req = self._request(args, fetch + offset, allowed, flt, side)
        outcome, error, blended = self._blended(req)
        if flt is None:  # attachments have no frontmatter to filter on
            outcome = self._with_attachments(outcome, args, req)
        contested = is_contested(outcome.hits)
        step = self._rerank_step(reranker, args, contested, outcome, caller)
        hits, store = self._with_synthesis_warnings(step.hits[offset : offset + args.limit], caller)
        return SearchResult(
            query=args.query,
            engine=step.engine,
            error=error or step.error or outcome.error,
            contested=contested,
            reranked=step.reranked,
            hidden_protected=outcome.hidden + step.dropped,
            took_ms=round((time.perf_counter() - t0) * 1000, 3),
            results=hits,
            warnings=capped
            + store
            + side.warnings
            + step.warnings
            + outcome_warnings(outcome, self._budget_ms)
            + unfiltered(flt, error),
            next_offset=offset + args.limit if len(outcome.hits) >= req.limit else None,
            semantic_weight=side.weight if blended else None,
        )

    def _with_attachments(
        self, outcome: SearchOutcome, args: SearchArgs, req: SearchRequest
    ) -> SearchOutcome:
        return with_attachments(
            outcome,
            self.deps.attachments,
            args.query,
            args.mode,
            req.limit,
            args.folder,
            req.visible,
            self.deps.config.search,
        )

    def _request(
        self, args: SearchArgs, fetch: int, allowed: Visible | None, flt: Filters | None, side: Side
    ) -> SearchRequest:
        """What the searcher is asked: ``fetch`` hits, within the time budget from now."""
        return SearchRequest(
            query=args.query,
            limit=fetch,
            folder=args.folder,
            mode=args.mode,
            visible=allowed,
            filters=flt,
            semantic=side.hits,
            semantic_weight=side.weight or 0.0,
            semantic_asked=side.asked,
            deadline=time.monotonic() + self._budget_ms / 1000,
        )

    def _rerank_step(
        self,
        reranker: Reranker | None,
        args: SearchArgs,
        contested: bool,
        outcome: SearchOutcome,
        caller: Caller,
    ) -> Step:
        return rerank_step(
            reranker,
            args.rerank,
            contested,
            outcome.engine,
            self.deps.index.reader,
            args.query,
            outcome.hits,
            self.deps.config.rerank.shortlist,
            self.deps.access.is_private,
            lambda: self.deps.access.visibility(caller=caller),
        )

    def _blended(self, req: SearchRequest) -> tuple[SearchOutcome, str | None, bool]:
        """The ranked answer, labeled ``fts5+semantic`` when the semantic side took part (a
        time budget spent before the blend leaves it ``fts5``)."""
        outcome, error = self._ranked(req)
        if outcome.blended:
            outcome.engine = "fts5+semantic"
        return outcome, error, outcome.blended

    def _semantic_side(
        self, args: SearchArgs, choice: SemanticChoice, allowed: Visible | None
    ) -> Side:
        """The semantic candidates (see :mod:`hoard.app.search_semantic`); the embedding
        builder is told to look at the index now (it never delays the search)."""
        if self.semantic is not None:
            self.semantic.kick()
        return semantic_side(
            self.semantic,
            self.deps.config.semantic,
            choice,
            args.mode,
            args.query,
            args.folder,
            allowed,
        )

    def _visible(self, caller: Caller, extra: Visible | None) -> Visible | None:
        allowed = self.deps.access.visibility(caller=caller)
        if allowed is None or extra is None:
            return allowed or extra
        return lambda p: allowed(p) and extra(p)

    def _ranked(self, req: SearchRequest) -> tuple[SearchOutcome, str | None]:
        """The searcher's answer, or the labeled substring scan (and a repair) when the
        index cannot answer."""
        try:
            self.keeper.ensure_fresh()
            return self.searcher.search(req), None
        except HoardError:
            raise
        except (StoreError, OSError) as exc:
            log.warning("search fell back to a substring scan: %s", exc)
            self.keeper.schedule_repair()
            error = f"index unusable ({type(exc).__name__}: {exc}); answered by a substring scan"
            return self._fallback(req), error

    def _fallback(self, req: SearchRequest) -> SearchOutcome:
        if req.mode == "fts":
            # The FTS5 grammar has no substring meaning; scan for its words instead.
            req = replace(req, query=req.query.replace('"', " "), mode="natural")
        return self.fallback.search(req)

    def _with_synthesis_warnings(
        self, hits: list[SearchHit], caller: Caller
    ) -> tuple[list[SearchHit], list[ResultWarning]]:
        """Registered summaries carry their synthesis state; one budget for the whole page.
        With the shared store unreachable, the hits stand as found, labeled."""
        try:
            by_path = self.honesty.warnings_for([h.path for h in hits], Budget(), caller=caller)
        except Unavailable:
            return hits, [STORE_UNAVAILABLE]
        marked = [
            replace(h, warnings=[*h.warnings, *by_path[h.path]]) if by_path.get(h.path) else h
            for h in hits
        ]
        return marked, []


_FTS_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})


def term_cap_warnings(args: SearchArgs, max_terms: int) -> list[ResultWarning]:
    """The cap on query words: a longer ``fts`` query is refused (its grammar cannot be cut
    safely); a natural query searches its first :data:`MAX_QUERY_CHUNKS` words and says so."""
    if args.mode == "fts":
        words = [w for w in words_of(args.query) if w not in _FTS_OPERATORS]
        if len(words) > max_terms:
            raise BadQuery(
                f"the query has {len(words)} terms; an fts query may have at most {max_terms} "
                "(limits.query_max_terms)",
                terms=len(words),
                limit=max_terms,
            )
        return []
    words = args.query.split()
    if len(words) <= MAX_QUERY_CHUNKS:
        return []
    return [
        QueryTruncatedWarning(
            kind="query_truncated",
            message=f"only the first {MAX_QUERY_CHUNKS} of {len(words)} words were searched",
            limit=MAX_QUERY_CHUNKS,
        )
    ]


def outcome_warnings(outcome: SearchOutcome, budget_ms: int) -> list[ResultWarning]:
    """What the engine could not do as asked: words it searched in another spelling, and a
    time budget that ran out."""
    out: list[ResultWarning] = []
    if outcome.timed_out:
        out.append(time_budget_warning(budget_ms, found=bool(outcome.hits)))
    if outcome.common_kept:
        out.append(
            CommonWordsKeptWarning(
                kind="common_words_kept",
                message="words found in most notes are usually left out; without them "
                "this query found too little, so they were searched too",
                words=outcome.common_kept,
            )
        )
    return out + _correction_warnings(outcome)


def _correction_warnings(outcome: SearchOutcome) -> list[ResultWarning]:
    if not outcome.corrections:
        return []
    return [
        TypoCorrectionsWarning(
            kind="typo_corrections",
            message="some words had no match; close spellings were searched too "
            "(their hits rank below exact matches)",
            corrections=outcome.corrections,
        )
    ]
