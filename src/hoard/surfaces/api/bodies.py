"""The JSON request bodies of the API: validated by pydantic and described in the OpenAPI
document from these same types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field

from hoard.core.choices import ArchiveReason
from hoard.core.edits import MAX_EDITS
from hoard.surfaces.mcp.edit_tools import EDITS_HELP


@dataclass(frozen=True, slots=True)
class NoteBody:
    """A note's full text (the body may instead be the bare text as ``text/markdown``)."""

    content: str


@dataclass(frozen=True, slots=True)
class EditBody:
    """``vault_edit``'s edit list (docs/edits.md), applied in order, all or nothing."""

    edits: Annotated[
        list[dict[str, Any]], Field(min_length=1, max_length=MAX_EDITS, description=EDITS_HELP)
    ]


@dataclass(frozen=True, slots=True)
class MoveBody:
    """``vault_move``'s target: where the note goes, and whether links to it follow."""

    new_path: Annotated[str, Field(description="Where the note goes (vault-relative).")]
    update_links: Annotated[
        bool, Field(description="Rewrite every link to the note (default true).")
    ] = True


@dataclass(frozen=True, slots=True)
class ArchiveBody:
    reason: ArchiveReason


@dataclass(frozen=True, slots=True)
class RestoreBody:
    revision_id: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class FileNoteBody:
    path: str
    content: str
    index_line: str | None = None
    expected_revision: str | None = None
    dry_run: bool = False


@dataclass(frozen=True, slots=True)
class AccessRequestBody:
    glob: str
    reason: str


@dataclass(frozen=True, slots=True)
class GrantBody:
    caller: str
    glob: str
    minutes: float = 60.0


@dataclass(frozen=True, slots=True)
class ApproveBody:
    minutes: float = 60.0


@dataclass(frozen=True, slots=True)
class TokenBody:
    name: str
    scopes: list[str] = field(default_factory=lambda: ["read"])
    write_mode: Literal["direct", "propose"] = "propose"
    confirm_own: bool = False
    read: list[str] = field(default_factory=list)
    """Folders (path globs) the caller may read; empty: the whole vault."""
    write: list[str] = field(default_factory=list)
    """Folders (path globs) it may write, within ``read``; empty: all it may read."""


@dataclass(frozen=True, slots=True)
class ClaimBody:
    subject: str
    property: str
    value: str
    source_path: str
    scope: str = "global"
    valid_from: str | None = None
    valid_until: str | None = None
    supersedes: str | None = None


@dataclass(frozen=True, slots=True)
class SynthesisBody:
    sources: list[str]


@dataclass(frozen=True, slots=True)
class CodeBody:
    code: str
