"""The warnings a result can carry: one typed shape per ``kind``.

A warning says something is off about an answer that still stands (a search that could not
use everything it was asked to, a summary whose sources drifted, bytes that are not UTF-8).
Each kind is a ``TypedDict`` with a ``Literal`` kind, so the output schemas list every kind
and its fields, and a union of them validates to exactly one member.

``typing_extensions.TypedDict``, not ``typing``'s: pydantic (which builds the MCP output
schemas) reads a nested ``typing.TypedDict`` only from Python 3.12 on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from typing_extensions import TypedDict

from hoard.core.choices import SynthesisState


class EncodingWarning(TypedDict):
    """``vault_read``: the note is not valid UTF-8; bad bytes are shown as U+FFFD."""

    kind: Literal["encoding"]
    message: str


class SynthesisWarning(TypedDict):
    """A registered summary whose sources drifted, or that could not be fully checked."""

    kind: Literal["synthesis"]
    state: SynthesisState
    message: str
    drifted: list[dict[str, Any]]
    hidden_drifted: int
    registration_id: str | None
    budget: dict[str, Any]
    disclaimer: str | None


class TypoCorrectionsWarning(TypedDict):
    """Some words matched nothing; these close spellings were searched too."""

    kind: Literal["typo_corrections"]
    message: str
    corrections: dict[str, list[str]]


class CommonWordsKeptWarning(TypedDict):
    """Words found in most notes are left out of a query; without them it found too little,
    so these were searched after all."""

    kind: Literal["common_words_kept"]
    message: str
    words: list[str]


class QueryTruncatedWarning(TypedDict):
    """A natural query longer than ``limit`` words: only the first ``limit`` were searched."""

    kind: Literal["query_truncated"]
    message: str
    limit: int


class TimeBudgetWarning(TypedDict):
    """The request ran out of ``limits.request_time_ms``; the answer holds what was found."""

    kind: Literal["time_budget"]
    message: str
    budget_ms: int


class RerankUnavailableWarning(TypedDict):
    kind: Literal["rerank_unavailable"]
    message: str


class SemanticUnavailableWarning(TypedDict):
    kind: Literal["semantic_unavailable"]
    message: str


class SemanticPartialWarning(TypedDict):
    """Notes are still being embedded: those without a vector are found lexically only."""

    kind: Literal["semantic_partial"]
    message: str
    embedded: int
    notes: int


class StoreUnavailableWarning(TypedDict):
    """The shared store (PostgreSQL) is unreachable: the answer comes from this replica's
    own index and the folder, without what only the store knows (grants to protected notes,
    summaries' synthesis states)."""

    kind: Literal["store_unavailable"]
    message: str


STORE_UNAVAILABLE = StoreUnavailableWarning(
    kind="store_unavailable",
    message="the shared store is unreachable: answered from this replica's index without "
    "grants or synthesis checks",
)


class FiltersNotAppliedWarning(TypedDict):
    """The substring fallback answered a filtered search; it cannot filter."""

    kind: Literal["filters_not_applied"]
    message: str


def time_budget_warning(budget_ms: int, *, found: bool) -> TimeBudgetWarning:
    """The label on an answer cut short by ``limits.request_time_ms``."""
    what = "the answer holds what was found by then" if found else "nothing was found by then"
    return TimeBudgetWarning(
        kind="time_budget",
        message=f"the call ran out of its {budget_ms} ms budget (limits.request_time_ms); {what}",
        budget_ms=budget_ms,
    )


ResultWarning = (
    EncodingWarning
    | SynthesisWarning
    | TypoCorrectionsWarning
    | CommonWordsKeptWarning
    | QueryTruncatedWarning
    | TimeBudgetWarning
    | RerankUnavailableWarning
    | SemanticUnavailableWarning
    | SemanticPartialWarning
    | FiltersNotAppliedWarning
    | StoreUnavailableWarning
)
"""Any warning a result carries (``warnings`` on search hits and results, reads,
``vault_similar``)."""


@dataclass(frozen=True)
class SyncMarked:
    """The sync state a write's result carries (keyword-only, after the result's own
    fields): with a git remote configured, ``synced`` is false until the change's commit
    reached the remote (null without a remote), and ``sync_warning`` is set while pushes
    have failed for longer than ``[git] warn_after_s``. The change is on this machine,
    fsynced, either way."""

    synced: bool | None = field(default=None, kw_only=True)
    sync_warning: str | None = field(default=None, kw_only=True)


def unsynced(data: dict[str, Any]) -> dict[str, Any]:
    """A :class:`SyncMarked` result's JSON without a remote: no sync fields at all."""
    data.pop("synced", None)
    data.pop("sync_warning", None)
    return data
