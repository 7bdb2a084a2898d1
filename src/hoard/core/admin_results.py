"""The owner's administration results: grants, access requests, callers and tokens."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class GrantInfo:
    grant_id: str
    caller: str
    glob: str
    expires_at: str


@dataclass(frozen=True, slots=True)
class AccessRequestInfo:
    request_id: str
    caller: str
    glob: str
    reason: str
    created_at: str


@dataclass(frozen=True, slots=True)
class GrantsResult:
    grants: list[GrantInfo]
    requests: list[AccessRequestInfo]


@dataclass(frozen=True, slots=True)
class CallerInfo:
    name: str
    scopes: list[str]
    write_mode: str
    confirm_own: bool = False
    """Whether this caller may confirm the proposals it made itself."""
    read: list[str] = field(default_factory=list)
    """The folders (path globs) it may read; empty: the whole vault."""
    write: list[str] = field(default_factory=list)
    """The folders (path globs) it may write, within ``read``; empty: all it may read."""


@dataclass(frozen=True, slots=True)
class CallersResult:
    callers: list[CallerInfo]


@dataclass(frozen=True, slots=True)
class NewTokenResult:
    """A new caller; ``token`` is shown this once and only its digest is stored."""

    name: str
    token: str
    scopes: list[str]
    write_mode: str
    confirm_own: bool = False
    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RevokedResult:
    revoked: str
