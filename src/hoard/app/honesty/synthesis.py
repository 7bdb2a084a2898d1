"""Synthesis registrations: a summary note records the revisions of its sources, and its
status walks them transitively (a source that is itself a registered summary is checked
through its own sources; cycles end the walk) within one :class:`Budget`.

Registrations are rows, never updated: the current registration of a path is its latest.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hoard.adapters.ledger.honesty_schema import DISCLAIMER
from hoard.adapters.ledger.honesty_tables import Registration, SynthesisTable
from hoard.adapters.ledger.store import new_id
from hoard.app.deps import Deps
from hoard.app.honesty.budget import Budget, FileState, HashCache
from hoard.app.honesty.results import (
    DriftedSource,
    SynthesisHistoryResult,
    SynthesisRegisterResult,
    SynthesisRegistration,
    SynthesisSource,
    SynthesisStatusResult,
)
from hoard.core.errors import InvalidArgument
from hoard.core.gates import require_scope
from hoard.core.models import to_json
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller
from hoard.core.reach import counts_as_hidden
from hoard.core.result_warnings import SynthesisWarning
from hoard.core.times import iso_instant

MAX_SOURCES = 32


@dataclass
class Walk:
    """What one response has learned so far: file states and registrations, shared by every
    status it computes, so each file is checked at most once per response."""

    budget: Budget
    files: dict[str, FileState] = field(default_factory=dict)
    registrations: dict[str, Registration | None] = field(default_factory=dict)
    summaries: set[str] | None = None
    """Every path that has a registration (read once per response: most notes are none)."""


class SynthesisBook:
    def __init__(self, deps: Deps, cache: HashCache) -> None:
        self.deps = deps
        self.cache = cache
        self.table = SynthesisTable(deps.ledger)

    # -- registering ---------------------------------------------------------------------------

    def register(self, path: str, sources: list[str], *, caller: Caller) -> SynthesisRegisterResult:
        require_scope(caller, "write")
        rel = normalize_note_path(path)
        if not isinstance(sources, list | tuple) or not all(isinstance(s, str) for s in sources):
            raise InvalidArgument("sources must be a list of note paths", field="sources")
        wanted: list[str] = []
        for s in sources:
            src = normalize_note_path(s)
            if src == rel:
                raise InvalidArgument(f"{rel!r} cannot be its own source", field="sources")
            if src not in wanted:
                wanted.append(src)
        if not wanted:
            raise InvalidArgument("a summary needs at least one source", field="sources")
        if len(wanted) > MAX_SOURCES:
            raise InvalidArgument(
                f"a summary registers at most {MAX_SOURCES} sources ({len(wanted)} given); "
                "register intermediate summaries and list those instead",
                field="sources",
                limit=MAX_SOURCES,
            )
        for p in (rel, *wanted):
            self.deps.access.check_visible(p, caller=caller)
        self.cache.revision(rel)  # the summary itself must exist and be a readable note
        recorded = [(src, self.cache.revision(src)) for src in wanted]
        reg_id = new_id(10)
        now = time.time()
        before = self.table.register(reg_id, rel, caller.name, now, recorded)
        return SynthesisRegisterResult(
            path=rel,
            sources=[SynthesisSource(src, rev) for src, rev in recorded],
            registration_id=reg_id,
            created_at=iso_instant(now),
            replaces=before,
        )

    # -- reading registrations -----------------------------------------------------------------

    def _latest(self, path: str, walk: Walk | None = None) -> Registration | None:
        if walk is not None and path in walk.registrations:
            return walk.registrations[path]
        if walk is not None:
            if walk.summaries is None:
                walk.summaries = self.table.summary_paths()
            if path not in walk.summaries:
                walk.registrations[path] = None
                return None
        reg = self.table.latest(path)
        if walk is not None:
            walk.registrations[path] = reg
        return reg

    def registered(self, paths: list[str]) -> set[str]:
        """Which of ``paths`` are registered summaries (one query)."""
        return self.table.registered_among(paths)

    def history(self, path: str, *, caller: Caller) -> SynthesisHistoryResult:
        require_scope(caller, "read")
        rel = normalize_note_path(path)
        self.deps.access.check_visible(rel, caller=caller)
        seen = self.deps.access.visibility(caller=caller)
        regs = self.table.history(rel)
        return SynthesisHistoryResult(
            rel,
            [
                SynthesisRegistration(
                    registration_id=r.registration_id,
                    path=r.path,
                    caller=r.caller,
                    created_at=iso_instant(r.created_at),
                    sources=[
                        SynthesisSource(p, v) for p, v in r.sources if seen is None or seen(p)
                    ],
                    current=i == 0,
                )
                for i, r in enumerate(regs)
            ],
        )

    # -- status --------------------------------------------------------------------------------

    def status(
        self, path: str, budget: Budget | None = None, *, caller: Caller
    ) -> SynthesisStatusResult:
        require_scope(caller, "read")
        rel = normalize_note_path(path)
        self.deps.access.check_visible(rel, caller=caller)
        walk = Walk(budget or Budget())
        result = self.status_in(rel, walk, self.deps.access.visibility(caller=caller))
        result.budget = walk.budget.as_dict()
        return result

    def status_in(
        self, rel: str, walk: Walk, seen: Callable[[str], bool] | None
    ) -> SynthesisStatusResult:
        """The status of ``rel`` using (and adding to) what ``walk`` already knows."""
        root = self._latest(rel, walk)
        out = SynthesisStatusResult(
            state="unregistered",
            drifted=[],
            budget={},
            disclaimer=DISCLAIMER,
            path=rel,
            registration_id=None if root is None else root.registration_id,
            registered_at=None if root is None else iso_instant(root.created_at),
            message=f"{rel!r} is not a registered summary",
        )
        if root is None:
            return out
        expanded = {rel}
        complete = self._check_sources(root, walk, seen, out, expanded)
        _conclude(out, complete, sources=len(expanded) - 1)
        return out

    def _check_sources(
        self,
        root: Registration,
        walk: Walk,
        seen: Callable[[str], bool] | None,
        out: SynthesisStatusResult,
        expanded: set[str],
    ) -> bool:
        """Walk ``root``'s sources breadth-first (a source that is a registered summary adds
        its own; ``expanded`` ends cycles), adding each drifted one to ``out``. False when the
        budget ran out before every source was checked."""
        queue: deque[Registration] = deque([root])
        while queue:
            if walk.budget.out_of_time():
                return False
            reg = queue.popleft()
            for src, recorded in reg.sources:
                state = walk.files.get(src)
                if state is None:
                    state = self.cache.check(src, walk.budget)
                    if state.checked:
                        walk.files[src] = state
                if not state.checked:
                    return False
                if state.revision != recorded:
                    if seen is not None and not seen(src):
                        out.hidden_drifted += counts_as_hidden(seen, src)
                    else:
                        out.drifted.append(_drift(src, recorded, state, reg.path, seen))
                if src not in expanded:
                    expanded.add(src)
                    nested = self._latest(src, walk)
                    if nested is not None:
                        queue.append(nested)
        return True

    def warnings_for(
        self, paths: list[str], budget: Budget, *, caller: Caller
    ) -> dict[str, list[SynthesisWarning]]:
        """Synthesis warnings for the registered summaries among ``paths`` that are stale or
        could not be fully checked (in order, so the first paths get the budget first). One
        walk, one budget, for all of them; a current summary gets no warning."""
        found = self.registered(list(dict.fromkeys(paths)))
        seen = self.deps.access.visibility(caller=caller)
        walk = Walk(budget)
        results: dict[str, SynthesisStatusResult] = {}
        for p in paths:
            if p in found and p not in results:
                results[p] = self.status_in(p, walk, seen)
        shared = budget.as_dict()
        # A warning means something is wrong: a current summary has none.
        return {p: [_warning(r, shared)] for p, r in results.items() if r.state != "current"}


def _drift(
    src: str, recorded: str, state: FileState, via: str, seen: Callable[[str], bool] | None
) -> DriftedSource:
    return DriftedSource(
        path=src,
        recorded_revision=recorded,
        current_revision=state.revision,
        missing=state.problem == "missing",
        problem=state.problem or "changed",
        via=via if seen is None or seen(via) else None,
    )


def _warning(r: SynthesisStatusResult, budget: dict[str, Any]) -> SynthesisWarning:
    return SynthesisWarning(
        kind="synthesis",
        state=r.state,
        message=f"synthesis: {r.message}",
        drifted=to_json(r.drifted),
        hidden_drifted=r.hidden_drifted,
        registration_id=r.registration_id,
        budget=budget,
        disclaimer=r.disclaimer,
    )


def _conclude(out: SynthesisStatusResult, complete: bool, sources: int) -> None:
    """Set ``out``'s state and message from what the walk found (``sources``: how many files
    it reached, transitively)."""
    n = len(out.drifted) + out.hidden_drifted
    if n:
        out.state = "stale"
        out.message = f"{n} source file(s) changed or vanished since registration" + (
            " (the budget ran out, so there may be more)" if not complete else ""
        )
    elif not complete:
        out.state = "incomplete"
        out.message = (
            "the check budget ran out before every source was checked; no drift found "
            "in the part that was checked"
        )
    else:
        out.state = "current"
        out.message = (
            f"every source ({sources} file(s), transitively) has the revision "
            "recorded at registration"
        )
