"""The write gates as pure decisions: given what is on disk and what a caller asks for,
either the kind of write it is or the refusal. No I/O; the write path supplies the bytes.

Order: validate (path, private, contract, Related block, size), then the
revision check. The per-path lock is taken by the caller of these functions *before* it reads
the current bytes, so the decision is made against the file as it is.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from hoard.core.config import Config
from hoard.core.contract import Violation, check_contract
from hoard.core.errors import Conflict, ContractViolation, Exists, Forbidden, PrivateNote, TooLarge
from hoard.core.globs import matches_any
from hoard.core.note import revision_of
from hoard.core.policy import Caller, may_confirm

RELATED_LINE = "Related:"


@dataclass(frozen=True, slots=True)
class Current:
    """A note as it is on disk (``raw is None``: no file there)."""

    raw: bytes | None

    @property
    def revision(self) -> str | None:
        return None if self.raw is None else revision_of(self.raw)


def related_block(raw: bytes) -> bytes | None:
    """The generated trailer: from a line that is exactly ``Related:`` to the end."""
    marker = RELATED_LINE.encode()
    pos = 0
    while True:
        idx = raw.find(marker, pos)
        if idx == -1:
            return None
        line_start = idx == 0 or raw[idx - 1 : idx] == b"\n"
        end = idx + len(marker)
        line_end = end == len(raw) or raw[end : end + 1] == b"\n" or raw[end : end + 2] == b"\r\n"
        if line_start and line_end:
            return raw[idx:]
        pos = idx + 1


def is_private(path: str, config: Config) -> bool:
    return matches_any(path, config.private)


def private_locked(path: str, caller: Caller, config: Config) -> bool:
    """``path`` is a private note that ``caller`` may not overwrite, move or archive (only
    a caller with ``private_writes`` may: the owner's web session on loopback)."""
    return is_private(path, config) and not caller.private_writes


def validate(
    path: str, new: bytes, current: Current, caller: Caller, config: Config
) -> list[Violation]:
    """Gate 1. Raises for refusals that are not contract problems; returns the contract
    violations (empty when the content passes)."""
    if len(new) > config.limits.note_max_bytes:
        raise TooLarge(
            f"the note would be {len(new)} bytes; the limit is {config.limits.note_max_bytes}",
            path=path,
            size=len(new),
            limit=config.limits.note_max_bytes,
        )
    private = is_private(path, config)
    if current.raw is not None and private_locked(path, caller, config):
        raise PrivateNote(
            f"{path!r} is a private note: it is never overwritten through the server", path=path
        )
    violations: list[Violation] = [] if private else check_contract(new, config.contract)
    if current.raw is not None and not caller.has("maintenance"):
        before = related_block(current.raw)
        if before is not None and related_block(new) != before:
            violations.append(
                Violation(
                    "Related",
                    "related_block",
                    "the Related block is generated: keep it byte-identical (or use a caller "
                    "with the maintenance scope)",
                )
            )
    return violations


def check_revision(path: str, current: Current, expected_revision: str | None) -> str:
    """Gate 2: ``"create"`` or ``"overwrite"``, else :class:`Exists` / :class:`Conflict`."""
    have = current.revision
    if expected_revision is None:
        if have is not None:
            raise Exists(
                f"{path!r} exists; pass its revision as expected_revision to overwrite it",
                current_revision=have,
            )
        return "create"
    if have != expected_revision:
        raise Conflict(
            f"{path!r} changed: expected revision {expected_revision[:12]}…, the note is "
            + (f"at {have[:12]}…" if have else "gone"),
            current_revision=have,
        )
    return "overwrite"


def require_scope(caller: Caller, scope: str) -> None:
    if not caller.has(scope):
        raise Forbidden(
            f"caller {caller.name!r} lacks the {scope!r} scope", scope=scope, caller=caller.name
        )


def require_may_confirm(caller: Caller, proposal_id: str, proposer: str) -> None:
    """A caller holding ``confirm`` may confirm another caller's proposal; its own only when
    it may confirm its own (the local stdio caller, a token made with ``--confirm-own``)."""
    if not may_confirm(caller, proposer):
        raise Forbidden(
            f"proposal {proposal_id} was made by {caller.name!r} itself, and this caller may "
            "not confirm its own proposals: it waits for the owner or another caller with "
            f"the 'confirm' scope (the owner confirms it in the web inbox or with "
            f"`hoard confirm {proposal_id}`)",
            scope="confirm",
            caller=caller.name,
            proposal_id=proposal_id,
        )


def refuse_violations(path: str, violations: list[Violation]) -> None:
    if violations:
        rules = ", ".join(sorted({v.rule for v in violations}))
        raise ContractViolation(
            f"{path!r} breaks the frontmatter contract ({rules})", [v.as_dict() for v in violations]
        )


def unified_diff(path: str, before: bytes | None, after: bytes) -> str:
    old = [] if before is None else before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(
        difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if before is None else f"a/{path}",
            tofile=f"b/{path}",
        )
    )
