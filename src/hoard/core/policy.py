"""Callers, scopes and who may see what. Pure: no I/O.

A caller is a credential holder, not a person: a name from the tokens file (HTTP), the
``--as`` name (stdio), the local default, or the vault owner at the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hoard.core.globs import matches, matches_any

SCOPES: tuple[str, ...] = ("read", "write", "confirm", "maintenance", "admin")
WRITE_MODES: tuple[str, ...] = ("direct", "propose")

IDENTITY_NOTE = (
    "A caller is a credential holder, not a person: hoard knows which token (or local "
    "name) made a call, never who typed it."
)


@dataclass(frozen=True, slots=True)
class Caller:
    name: str
    scopes: frozenset[str]
    write_mode: str = "propose"
    owner: bool = False
    """The vault owner at the CLI: sees protected notes without a grant."""
    confirm_own: bool = False
    """May confirm proposals it made itself: the local stdio caller (a person approves each
    tool call in the chat client) and tokens made with ``--confirm-own``. Any other caller's
    proposals wait for the owner or another caller with ``confirm``."""
    private_writes: bool = False
    """May overwrite, move and archive private notes: only the owner's web session on a
    server nobody else can reach (bound to loopback, no public address), so the notes never
    leave the machine. Never a token, an agent or an OAuth client."""
    read_globs: tuple[str, ...] = ()
    """The folders (path globs) this caller may read; empty: the whole vault. A note
    outside them does not exist for it (see :mod:`hoard.core.reach`)."""
    write_globs: tuple[str, ...] = ()
    """The folders (path globs) this caller may write, within ``read_globs``; empty: every
    note it may read."""

    def has(self, scope: str) -> bool:
        return scope in self.scopes


LOCAL_DEFAULT = Caller(
    "local", frozenset({"read", "write", "confirm"}), "propose", confirm_own=True
)
OWNER = Caller("owner", frozenset(SCOPES), "direct", owner=True, confirm_own=True)


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """A caller in the tokens file: its name, the SHA-256 of its token (never the token),
    its scopes, write mode, whether it may confirm its own proposals, and the folders it
    may read and write (empty: no limit)."""

    name: str
    sha256: str
    scopes: tuple[str, ...]
    write_mode: str
    confirm_own: bool = False
    read_globs: tuple[str, ...] = ()
    write_globs: tuple[str, ...] = ()

    def caller(self) -> Caller:
        return Caller(
            self.name,
            frozenset(self.scopes),
            self.write_mode,
            confirm_own=self.confirm_own,
            read_globs=self.read_globs,
            write_globs=self.write_globs,
        )


@dataclass(frozen=True, slots=True)
class Grant:
    grant_id: str
    caller: str
    glob: str
    expires_at: float


def parse_scopes(text: str | Iterable[str]) -> frozenset[str]:
    """``"read,write"`` → the scope set; unknown scopes raise ``ValueError`` naming them."""
    items = text.split(",") if isinstance(text, str) else list(text)
    scopes = {s.strip() for s in items if s.strip()}
    unknown = sorted(scopes - set(SCOPES))
    if unknown:
        raise ValueError(f"unknown scope(s): {', '.join(unknown)}; known: {', '.join(SCOPES)}")
    return frozenset(scopes)


def is_protected(path: str, protected: tuple[str, ...]) -> bool:
    """Protection ignores letter case: ``Finance/budget.md`` is the same note as
    ``finance/budget.md`` on a case-insensitive file system, and a case variant must never
    be a way around a glob (it fails closed)."""
    return bool(protected) and matches_any(path.lower(), [g.lower() for g in protected])


def may_see(
    path: str, caller: Caller, protected: tuple[str, ...], grants: Iterable[Grant], now: float
) -> bool:
    """A protected note is visible to the owner, or to a caller holding an unexpired grant
    whose glob covers it. Everything else is visible."""
    if not is_protected(path, protected) or caller.owner:
        return True
    return any(
        g.caller == caller.name and g.expires_at > now and matches(path.lower(), g.glob.lower())
        for g in grants
    )


OWN_PROPOSAL_NOTE = (
    "You cannot confirm a proposal you made yourself: it waits for the owner or another "
    "caller with the 'confirm' scope."
)


def may_confirm_own(caller: Caller) -> bool:
    """Whether ``caller`` may confirm the proposals it made itself."""
    return caller.confirm_own or caller.owner


def may_confirm(caller: Caller, proposer: str) -> bool:
    """A proposal made by ``proposer`` may be confirmed by ``caller`` (who holds
    ``confirm``): someone else's always, its own only when it is allowed to."""
    return proposer != caller.name or may_confirm_own(caller)


def credited(caller: Caller, proposer: str | None = None) -> str:
    """The name the ledger credits with a change: the caller, and when it confirms another
    caller's proposal, that caller too (``owner (proposed by agent-x)``)."""
    if proposer is None or proposer == caller.name:
        return caller.name
    return f"{caller.name} (proposed by {proposer})"


def policy_notes(caller: Caller, has_protected: bool) -> list[str]:
    """What ``vault_policy`` tells a caller in words, besides its scopes and globs."""
    notes = [IDENTITY_NOTE]
    if caller.write_mode == "propose":
        notes.append("Your writes become proposals that a person confirms.")
        if caller.has("confirm") and not may_confirm_own(caller):
            notes.append(OWN_PROPOSAL_NOTE)
    if has_protected:
        notes.append(
            "Protected notes are invisible without a grant; ask with "
            "vault_request_access(glob, reason)."
        )
    if caller.read_globs or caller.write_globs:
        notes.append(
            "You are limited to folders: notes outside the ones you may read do not exist "
            "for you, and a write outside the ones you may write is refused (forbidden)."
        )
    if caller.private_writes:
        notes.append("You may edit, move and archive private notes: they stay on this machine.")
    else:
        notes.append(
            "Private notes can be read (with 'read') but never overwritten or "
            "archived through the server."
        )
    return notes
