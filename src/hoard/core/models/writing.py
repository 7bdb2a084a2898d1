"""Results of the write tools: write, file_note, archive, restore, move, history, proposals
and recovery."""

from __future__ import annotations

from dataclasses import dataclass, field

from hoard.core.choices import ArchiveReason
from hoard.core.result_warnings import SyncMarked

# Result types are frozen (a use-case builds a new one rather than changing one it handed
# out). They are not slotted: the MCP SDK derives each output schema from the class's
# attributes, and slots turn the fields' defaults into member descriptors it cannot read.


@dataclass(frozen=True, slots=True)
class Preflight:
    current_revision: str | None
    revision_check: str
    """``create``, ``overwrite``, ``exists`` (no expected_revision, a file is there) or
    ``conflict`` (expected_revision is not the current one)."""
    violations: list[dict[str, str]]
    duplicates: list[str]
    obligations: list[str]


@dataclass(frozen=True)
class WriteResult(SyncMarked):
    status: str
    path: str
    revision: str | None
    previous_revision: str | None
    proposal_id: str | None = None
    expires_at: str | None = None
    diff: str | None = None
    preflight: Preflight | None = None


@dataclass(frozen=True)
class FileNoteResult(SyncMarked):
    status: str
    path: str
    transaction_id: str | None
    note_revision: str | None
    index_path: str
    index_revision: str | None
    index_changed: bool
    proposal_id: str | None = None
    expires_at: str | None = None
    diff: str | None = None
    preflight: Preflight | None = None


@dataclass(frozen=True)
class ArchiveResult(SyncMarked):
    status: str
    path: str
    revision_id: str | None
    sha256: str
    reason: ArchiveReason
    inbound_links: list[str]
    proposal_id: str | None = None
    expires_at: str | None = None
    diff: str | None = None


@dataclass(frozen=True)
class RestoreResult(SyncMarked):
    status: str
    path: str
    revision_id: str
    revision: str
    proposal_id: str | None = None
    expires_at: str | None = None


@dataclass(frozen=True, slots=True)
class RevisionInfo:
    revision_id: str
    sha256: str
    size: int
    reason: str
    caller: str
    at: str


@dataclass(frozen=True, slots=True)
class EventInfo:
    at: str
    tool: str
    caller: str
    decision: str
    before: str | None
    after: str | None
    reason: str | None


@dataclass(frozen=True)
class HistoryResult:
    path: str
    revisions: list[RevisionInfo]
    events: list[EventInfo]
    """The newest events (at most ``HISTORY_PAGE``), oldest first."""
    truncated: bool = False
    """Older events exist: ``vault_history(path, offset=next_offset)`` returns them."""
    next_offset: int | None = None
    kept: list[RevisionInfo] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RevisionContent:
    revision_id: str
    path: str
    sha256: str
    size: int
    content: str
    encoding: str
    """``utf-8``, or ``base64`` for bytes that are not UTF-8 (exact bytes either way)."""


@dataclass(frozen=True, slots=True)
class ProposalInfo:
    proposal_id: str
    tool: str
    path: str
    caller: str
    created_at: str
    expires_at: str
    diff: str


@dataclass(frozen=True)
class ProposalsResult:
    proposals: list[ProposalInfo]


@dataclass(frozen=True)
class RejectResult:
    proposal_id: str
    status: str


@dataclass(frozen=True, slots=True)
class RecoverItem:
    transaction_id: str
    state: str
    detail: str | None


@dataclass(frozen=True)
class RecoverResult:
    transactions: list[RecoverItem]


@dataclass(frozen=True, slots=True)
class MovedFile:
    path: str
    role: str
    """``note`` (the note at its new path), ``link`` (a note whose links were rewritten),
    ``index`` (a folder's _INDEX.md), ``old`` (the note's old path, removed)."""
    before: str | None
    after: str | None


@dataclass(frozen=True)
class MoveResult(SyncMarked):
    """``vault_move``: the note's new place, every file the move touched, and the links it
    could not rewrite (private notes by path; notes the caller cannot see only counted)."""

    status: str
    path: str
    new_path: str
    transaction_id: str | None
    revision: str | None
    previous_revision: str | None
    files: list[MovedFile]
    not_rewritten: list[str] = field(default_factory=list)
    hidden_not_rewritten: int = 0
    proposal_id: str | None = None
    expires_at: str | None = None
    diff: str | None = None
