"""The answers of git sync: its status (``vault_sync_status``, ``GET /api/v1/sync``,
``hoard sync --status``) and what one sync run did (``hoard sync``, ``POST /api/v1/sync``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class SyncPoint:
    """A successful pull or push: when (ISO 8601 UTC) and the commit it left both sides at."""

    at: str
    commit: str


@dataclass(frozen=True)
class Unpushed:
    """Commits on this machine the remote does not have yet."""

    count: int
    oldest_age_s: float | None


@dataclass(frozen=True)
class OpenConflict:
    """A note both sides changed: the remote's version holds ``path``, hoard's version is
    kept at ``sibling`` until the owner resolves it. ``kind`` ``renamed``: both sides
    renamed one note differently, ``path`` is the remote's new name and ``sibling``
    hoard's; both stay until the owner keeps one."""

    path: str
    sibling: str
    kind: Literal["changed", "renamed"] = "changed"


@dataclass(frozen=True)
class SyncStatus:
    enabled: bool
    remote: str | None
    branch: str | None
    push: bool
    last_pull: SyncPoint | None
    last_push: SyncPoint | None
    unpushed: Unpushed
    conflicts: list[OpenConflict]
    last_error: str | None
    last_error_at: str | None
    push_failing_since: str | None
    waiting: str | None
    """Why sync stopped and waits for the owner (the remote rewrote its history), or null."""
    warning: str | None
    """Set while pushes have failed for longer than ``[git] warn_after_s``."""


@dataclass(frozen=True)
class SyncRunResult:
    """One sync: what the pull brought and what the push sent."""

    pulled: str | None
    """The remote commit now integrated, or null when there was nothing new (or no pull)."""
    changed: list[str] = field(default_factory=list)
    """Notes and files the pull wrote, added or archived here."""
    conflicts: list[OpenConflict] = field(default_factory=list)
    """Conflicts this run found (both versions kept)."""
    outside_commit: str | None = None
    """The commit of edits made outside hoard that the run committed first."""
    pushed: str | None = None
    """The commit the remote now holds from this push, or null when nothing was pushed."""
    error: str | None = None
    """Why this run failed, in words (null: it worked); the status keeps it too."""
    status: SyncStatus | None = None


@dataclass(frozen=True)
class ConflictResolved:
    """A conflict the owner resolved: the version kept at ``path`` and the archived sibling."""

    path: str
    sibling: str
    kept: str
    """``remote`` (the version at the path stays) or ``mine`` (the sibling's replaced it)."""
    revision: str | None
    sibling_revision_id: str | None
    """The ledger revision that preserves the archived sibling's bytes."""
