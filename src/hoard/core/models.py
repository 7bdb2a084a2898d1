"""The typed results of the service façade: the SPEC's result objects, field for field. The
MCP surface returns these (the SDK turns them into output schemas), the CLI prints them or
dumps them with ``--json`` (:func:`to_json`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from hoard.core.choices import ArchiveReason, SearchEngine, SimilarEngine
from hoard.core.result_warnings import ResultWarning, SyncMarked, unsynced

# Result types are frozen (a use-case builds a new one rather than changing one it handed
# out). They are not slotted: the MCP SDK derives each output schema from the class's
# attributes, and slots turn the fields' defaults into member descriptors it cannot read.


@dataclass(frozen=True)
class SearchHit:
    path: str
    title: str
    score: float
    snippet: str
    folder: str
    frontmatter: dict[str, Any] | None
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True)
class SearchResult:
    query: str
    engine: SearchEngine
    error: str | None
    contested: bool
    reranked: bool
    hidden_protected: int
    took_ms: float
    results: list[SearchHit]
    warnings: list[ResultWarning] = field(default_factory=list)
    next_offset: int | None = None
    """Where the next page starts (``offset``), when there may be one."""
    semantic_weight: float | None = None
    """The lexical share of the blend when ``engine`` names ``semantic``."""


@dataclass(frozen=True, slots=True)
class SimilarHit:
    path: str
    title: str
    score: float
    """Cosine similarity of the two notes' vectors (1 is the same direction)."""
    folder: str


@dataclass(frozen=True)
class SimilarResult:
    path: str
    engine: SimilarEngine
    """``semantic``, or ``none`` when the model is not there (``warnings`` say why)."""
    took_ms: float
    results: list[SimilarHit]
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True)
class ReadResult:
    path: str
    revision: str
    size: int
    content: str
    offset: int
    next_offset: int | None
    truncated: bool
    frontmatter: dict[str, Any] | None
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ListEntry:
    path: str
    kind: str
    size: int
    mtime: str


@dataclass(frozen=True)
class ListResult:
    path: str
    entries: list[ListEntry]
    truncated: bool


@dataclass(frozen=True)
class OutgoingLink:
    target: str
    resolved_path: str | None
    broken: bool
    heading: str | None = None
    alias: str | None = None
    embed: bool = False
    line: int = 0


@dataclass(frozen=True)
class LinksResult:
    path: str
    outgoing: list[OutgoingLink]
    backlinks: list[str]
    broken: list[str]
    offset: int = 0
    next_offset: int | None = None
    """Where the next page starts (``vault_links(path, offset=next_offset)``), or ``None``."""
    truncated: bool = False
    """More outgoing links or backlinks than one page holds (``limits.links_max``), or the
    time budget cut the page short (then a ``time_budget`` warning says so)."""
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CheckViolation:
    path: str
    field: str
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class BrokenLink:
    path: str
    target: str
    line: int


@dataclass(frozen=True, slots=True)
class CheckResult:
    checked: int
    violations: list[CheckViolation]
    broken_links: list[BrokenLink]
    private_skipped: int


@dataclass(frozen=True)
class IndexResult:
    notes: int
    added: int
    updated: int
    removed: int
    failed: int
    rebuilt: bool
    elapsed_ms: float
    reason: str | None = None


@dataclass(frozen=True)
class PolicyResult:
    caller: str
    scopes: list[str]
    write_mode: str
    private: list[str]
    protected: list[str]
    grants: list[dict[str, Any]]
    notes: list[str]
    confirm_own: bool = False  # may confirm the proposals it made itself


@dataclass(frozen=True)
class AccessRequestResult:
    request_id: str
    status: str
    glob: str
    reason: str
    message: str


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


_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def to_json(obj: Any) -> Any:
    """Plain JSON-able data from a result dataclass (recursively). Scalars are checked
    first, a scalar field is copied without a call, and field names are cached per class:
    a listing has thousands of leaves."""
    cls = type(obj)
    if cls in _SCALARS:
        return obj
    if cls is list or cls is tuple:
        return [to_json(x) for x in obj]
    if cls is dict:
        return {str(k): to_json(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for name in _field_names(cls):
            value = getattr(obj, name)
            out[name] = value if type(value) in _SCALARS else to_json(value)
        return out if out.get("synced", 0) is not None else unsynced(out)
    if isinstance(obj, list | tuple):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    return obj


@dataclass(frozen=True)
class RunResult:
    """read_code's answer: the script's return value, its console lines, the host calls it
    made and its wall-clock time."""

    result: Any
    logs: list[str]
    calls: list[dict[str, Any]]
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class TagCount:
    tag: str
    count: int


@dataclass(frozen=True)
class TagsResult:
    """``vault_tags``: each tag with the number of notes the caller can see that carry it."""

    tags: list[TagCount]
    folder: str | None = None


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
