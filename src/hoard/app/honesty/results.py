"""The typed results of claims and synthesis: the SPEC's fields first, then extras."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hoard.adapters.ledger.honesty_schema import CACHE_NOTE, DISCLAIMER
from hoard.core.choices import ClaimStatus, SynthesisState


@dataclass
class ClaimRecordResult:
    claim_id: str
    source_revision: str
    source_path: str
    supersedes: str | None
    recorded_at: str | None
    disclaimer: str = DISCLAIMER


@dataclass
class ClaimInfo:
    """One recorded claim, as the ledger holds it (``live``: nothing supersedes it)."""

    claim_id: str
    subject: str
    property: str
    scope: str
    value: str
    source_path: str
    source_revision: str
    valid_from: str | None
    valid_until: str | None
    supersedes: str | None
    superseded_by: str | None
    live: bool
    caller: str
    recorded_at: str | None


@dataclass
class ConflictingClaim:
    """A live claim valid at the asked moment, with its source as it is now."""

    claim_id: str
    value: str
    source_path: str
    recorded_revision: str
    current_revision: str | None
    source_changed: bool | None
    """``None``: not checked (the budget ran out)."""
    valid_from: str | None
    valid_until: str | None


@dataclass
class ClaimGetResult:
    status: ClaimStatus
    value: str | None
    claim_id: str | None
    source_path: str | None
    recorded_revision: str | None
    current_revision: str | None
    conflicting: list[ConflictingClaim]
    subject: str
    property: str
    scope: str
    at: str | None
    message: str
    hidden_claims: int
    """Claims from protected notes this caller may not see; they were not considered."""
    budget: dict[str, Any]
    disclaimer: str = DISCLAIMER


@dataclass
class ClaimListResult:
    claims: list[ClaimInfo]
    truncated: bool = False
    hidden_claims: int = 0


@dataclass
class SynthesisSource:
    path: str
    revision: str


@dataclass
class SynthesisRegisterResult:
    path: str
    sources: list[SynthesisSource]
    registration_id: str
    created_at: str | None
    replaces: str | None
    """The registration this one replaced (kept in the ledger as history)."""
    disclaimer: str = DISCLAIMER


@dataclass
class DriftedSource:
    path: str
    recorded_revision: str
    current_revision: str | None
    missing: bool
    problem: str | None
    """``changed``, ``missing``, ``not_a_note`` or ``unreadable``."""
    via: str | None
    """The registered summary that recorded this source (``None`` if hidden from you)."""


@dataclass
class SynthesisStatusResult:
    state: SynthesisState
    drifted: list[DriftedSource]
    budget: dict[str, Any]
    disclaimer: str
    path: str
    registration_id: str | None
    registered_at: str | None
    hidden_drifted: int = 0
    """Drifted sources in protected notes this caller may not see (counted, not named)."""
    message: str = ""
    cache: str = CACHE_NOTE


@dataclass
class SynthesisRegistration:
    registration_id: str
    path: str
    caller: str
    created_at: str | None
    sources: list[SynthesisSource]
    current: bool


@dataclass
class SynthesisHistoryResult:
    path: str
    registrations: list[SynthesisRegistration] = field(default_factory=list)
