"""The typed results of the service façade: the SPEC's result objects, field for field. The
MCP surface returns these (the SDK turns them into output schemas), the CLI prints them or
dumps them with ``--json`` (:func:`to_json`). Grouped by the tools that answer with them;
``from hoard.core.models import X`` names any of them."""

from __future__ import annotations

from hoard.core.models.maintenance import (
    AccessRequestResult,
    AttachmentIssue,
    AttachmentsIndexed,
    BrokenLink,
    CheckResult,
    CheckViolation,
    IndexResult,
    PolicyResult,
)
from hoard.core.models.reading import (
    LinksResult,
    ListEntry,
    ListResult,
    NotePart,
    OutgoingLink,
    ReadResult,
    RunResult,
    SearchHit,
    SearchResult,
    SimilarHit,
    SimilarResult,
    TagCount,
    TagsResult,
)
from hoard.core.models.serialize import (
    to_json,
)
from hoard.core.models.writing import (
    ArchiveResult,
    EventInfo,
    FileNoteResult,
    HistoryResult,
    MovedFile,
    MoveResult,
    Preflight,
    ProposalInfo,
    ProposalsResult,
    RecoverItem,
    RecoverResult,
    RejectResult,
    RestoreResult,
    RevisionContent,
    RevisionInfo,
    WriteResult,
)

__all__ = [
    "AccessRequestResult",
    "ArchiveResult",
    "AttachmentIssue",
    "AttachmentsIndexed",
    "BrokenLink",
    "CheckResult",
    "CheckViolation",
    "EventInfo",
    "FileNoteResult",
    "HistoryResult",
    "IndexResult",
    "LinksResult",
    "ListEntry",
    "ListResult",
    "MoveResult",
    "MovedFile",
    "NotePart",
    "OutgoingLink",
    "PolicyResult",
    "Preflight",
    "ProposalInfo",
    "ProposalsResult",
    "ReadResult",
    "RecoverItem",
    "RecoverResult",
    "RejectResult",
    "RestoreResult",
    "RevisionContent",
    "RevisionInfo",
    "RunResult",
    "SearchHit",
    "SearchResult",
    "SimilarHit",
    "SimilarResult",
    "TagCount",
    "TagsResult",
    "WriteResult",
    "to_json",
]
