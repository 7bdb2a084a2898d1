"""The results of the orientation tools an agent starts a session with: what changed since it
last looked (``vault_recent``), a note with its neighbourhood (``vault_context``), the
session briefing, and ChatGPT's two tools (``search``/``fetch``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ChangeKind = Literal["created", "modified", "moved", "archived", "restored", "removed"]


@dataclass(frozen=True)
class RecentChange:
    path: str
    title: str
    kind: ChangeKind
    at: str
    who: str
    """The caller that made the change, or ``outside`` for a change hoard saw on disk."""
    revision: str | None
    """The note's revision after the change (``None`` when it left the path)."""
    summary: str
    """What changed, in one line: fields and sections touched, bytes added and removed."""


@dataclass(frozen=True)
class RecentResult:
    changes: list[RecentChange]
    cursor: str
    """Pass it back as ``cursor``: the next page while ``more`` is true, then only what
    changed after this answer."""
    more: bool
    """Older changes than this page holds remain (call again with ``cursor``)."""
    latest_cursor: str
    """A cursor that skips what is left of this walk: passed back, it tells only what
    changed after this answer."""
    notes: list[str] = field(default_factory=list)


ContextPartKind = Literal[
    "note", "links_out", "backlinks", "folder_index", "similar", "claims", "synthesis", "proposals"
]


@dataclass(frozen=True)
class ContextPart:
    kind: ContextPartKind
    label: str
    text: str
    paths: list[str]
    truncated: bool


@dataclass(frozen=True)
class ContextResult:
    path: str
    revision: str
    budget_bytes: int
    used_bytes: int
    """UTF-8 bytes of every part's text together: never more than ``budget_bytes``."""
    truncated: bool
    """A part was cut, or left out, to stay within the budget."""
    parts: list[ContextPart]
    omitted: list[str] = field(default_factory=list)
    """Kinds of part left out for want of budget."""


@dataclass(frozen=True)
class Briefing:
    """The ``orient`` briefing: a short text for an agent's context, and where it ends."""

    text: str
    cursor: str
    changes: int
    pending_proposals: int
    stale_summaries: int


@dataclass(frozen=True)
class ChatSearchHit:
    id: str
    title: str
    url: str


@dataclass(frozen=True)
class ChatSearchResult:
    results: list[ChatSearchHit]


@dataclass(frozen=True)
class ChatDocument:
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any] | None
