"""Honesty: claims bound to exact source revisions, and synthesis registrations whose
staleness is checked on disk within a stated budget.

:class:`Honesty` is the façade the service (``Hoard``) holds, one per process: it owns the
hash cache, so unchanged files are not re-hashed between responses. Every answer states what
it is not (:data:`DISCLAIMER`): hash equality is not proof of truth, and the ledger does not
lock filesystem writers.
"""

from __future__ import annotations

from hoard.adapters.ledger.honesty_schema import (
    CACHE_NOTE,
    DISCLAIMER,
    MIGRATION,
    migration_statements,
)
from hoard.app.deps import Deps
from hoard.app.honesty.budget import Budget, FileState, HashCache
from hoard.app.honesty.claims import ClaimBook
from hoard.app.honesty.results import (
    ClaimGetResult,
    ClaimInfo,
    ClaimListResult,
    ClaimRecordResult,
    ConflictingClaim,
    DriftedSource,
    SynthesisHistoryResult,
    SynthesisRegisterResult,
    SynthesisSource,
    SynthesisStatusResult,
)
from hoard.app.honesty.synthesis import MAX_SOURCES, SynthesisBook
from hoard.core.gates import require_scope
from hoard.core.policy import Caller
from hoard.core.result_warnings import SynthesisWarning

__all__ = [
    "CACHE_NOTE",
    "DISCLAIMER",
    "MAX_SOURCES",
    "MIGRATION",
    "Budget",
    "ClaimGetResult",
    "ClaimInfo",
    "ClaimListResult",
    "ClaimRecordResult",
    "ConflictingClaim",
    "DriftedSource",
    "FileState",
    "HashCache",
    "Honesty",
    "SynthesisHistoryResult",
    "SynthesisRegisterResult",
    "SynthesisSource",
    "SynthesisStatusResult",
    "migration_statements",
]


class Honesty:
    """Claims and synthesis over one vault, its ledger and its access rules: callers use
    :attr:`claims` and :attr:`syntheses` directly; the shared hash cache lives here."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.cache = HashCache(deps.vault)
        self.claims = ClaimBook(deps, self.cache)
        self.syntheses = SynthesisBook(deps, self.cache)

    def warnings_for(
        self, paths: list[str], budget: Budget, *, caller: Caller
    ) -> dict[str, list[SynthesisWarning]]:
        """``{path: [warning]}`` for the registered summaries among ``paths``, all drawing on
        ``budget`` (create one per response). Paths should already be visible to ``caller``
        (search and read results are)."""
        require_scope(caller, "read")
        return self.syntheses.warnings_for(paths, budget, caller=caller)
