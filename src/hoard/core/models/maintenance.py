"""Results of check, index, policy and access requests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Result types are frozen (a use-case builds a new one rather than changing one it handed
# out). They are not slotted: the MCP SDK derives each output schema from the class's
# attributes, and slots turn the fields' defaults into member descriptors it cannot read.


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


@dataclass(frozen=True, slots=True)
class AttachmentIssue:
    """An attachment listed instead of indexed, and why (``too_large``,
    ``too_many_pages``, ``encrypted``, ``malformed``, ``time``, ``memory``, ``unreadable``)."""

    path: str
    problem: str
    detail: str


@dataclass(frozen=True, slots=True)
class AttachmentsIndexed:
    """What ``hoard index`` did with the attachments."""

    files: int
    pages: int
    added: int
    updated: int
    removed: int
    extracted: int
    """Files whose text was read now (the others came from the cache by their hash)."""
    elapsed_ms: float
    problems: list[AttachmentIssue]


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
    attachments: AttachmentsIndexed | None = None
    """Set by ``hoard index`` when the vault has attachments (``[attachments]`` on)."""


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
    read: list[str] = field(default_factory=list)
    """The folders (path globs) this caller may read; empty: the whole vault."""
    write: list[str] = field(default_factory=list)
    """The folders (path globs) it may write; empty: all it may read."""


@dataclass(frozen=True)
class AccessRequestResult:
    request_id: str
    status: str
    glob: str
    reason: str
    message: str
