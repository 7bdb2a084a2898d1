"""The owner's desk for the web app: callers and their tokens, grants and access requests,
the ledger's activity, archived notes, browse facets and a change stamp for live pages.
Everything here is for the vault owner (a signed-in web session), never for an agent."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sized
from dataclasses import dataclass

from hoard.adapters.index import facets
from hoard.adapters.ledger import activity, kept
from hoard.adapters.ledger.activity import ArchivedRow, ExpiredProposal
from hoard.adapters.ledger.records import Event, Records
from hoard.adapters.store_errors import DatabaseError
from hoard.app.callers import CallerFile, known_callers, require_known_caller
from hoard.app.deps import Deps
from hoard.core import gates
from hoard.core.errors import (
    Conflict,
    Exists,
    NotFound,
    PathRejected,
    Protected,
    TooLarge,
)
from hoard.core.gates import Current
from hoard.core.paths import normalize_rel_path
from hoard.core.policy import Grant

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""The largest image the web app serves when ``[attachments] max_mb`` is lower."""
FIND_ATTACHMENT_LIMIT = 50_000
"""Most vault entries looked through to find an embedded file by name."""
EXPIRED_SHOWN_SECONDS = 7 * 86400
"""How long the inbox keeps showing a proposal that expired unanswered."""


@dataclass(frozen=True, slots=True)
class CallerInfo:
    name: str
    scopes: tuple[str, ...]
    write_mode: str
    confirm_own: bool = False
    read: tuple[str, ...] = ()
    """The folders (path globs) it may read; empty: the whole vault."""
    write: tuple[str, ...] = ()
    """The folders (path globs) it may write; empty: all it may read."""


@dataclass(frozen=True, slots=True)
class EventFilter:
    caller: str | None = None
    tool: str | None = None
    path_prefix: str | None = None
    decision: str | None = None
    limit: int = 200


class OwnerDesk:
    def __init__(
        self, deps: Deps, tokens: CallerFile, conflicts: Callable[[], Sized] | None = None
    ) -> None:
        self.deps = deps
        self.tokens = tokens
        self.records = Records(deps.ledger)
        self.conflicts: Callable[[], Sized] = conflicts or list
        """The open git-sync conflicts (kept siblings), which the inbox asks about too."""

    # -- callers -----------------------------------------------------------------------------

    def callers(self) -> list[CallerInfo]:
        return [
            CallerInfo(
                name=e.name,
                scopes=e.scopes,
                write_mode=e.write_mode,
                confirm_own=e.confirm_own,
                read=e.read_globs,
                write=e.write_globs,
            )
            for e in self.tokens.entries()
        ]

    def add_caller(
        self,
        name: str,
        scopes: str,
        write_mode: str,
        confirm_own: bool = False,
        read: str = "",
        write: str = "",
    ) -> tuple[CallerInfo, str]:
        """A new caller and its token (returned once, stored only as a digest);
        ``read``/``write`` limit it to folders (comma-separated globs, empty: no limit)."""
        entry, token = self.tokens.add(name, scopes, write_mode, confirm_own, read, write)
        info = CallerInfo(
            name=entry.name,
            scopes=entry.scopes,
            write_mode=entry.write_mode,
            confirm_own=entry.confirm_own,
            read=entry.read_globs,
            write=entry.write_globs,
        )
        return info, token

    def revoke_caller(self, name: str) -> None:
        self.tokens.revoke(name)

    # -- grants and access requests ------------------------------------------------------------

    def known_callers(self) -> list[str]:
        """The callers a grant can name (:func:`~hoard.app.callers.known_callers`)."""
        return known_callers(self.tokens)

    def add_grant(self, to: str, glob: str, minutes: float) -> Grant:
        """A grant to ``to``, a caller this vault knows; a name nobody holds is refused."""
        require_known_caller(self.tokens, to)
        return self.deps.ledger.add_grant(to, glob, minutes)

    def deny(self, request_id: str) -> None:
        activity.deny_request(self.deps.ledger, request_id)

    def expired_proposals(self) -> list[ExpiredProposal]:
        """Proposals that expired unanswered in the last seven days, so none vanishes silently
        (the surface still hides the ones whose path the owner's session may not show)."""
        return activity.recently_expired(self.deps.ledger, EXPIRED_SHOWN_SECONDS)

    def pending_count(self) -> int:
        """What waits for the owner in the inbox: live proposals, access requests, open
        clobbers and open sync conflicts."""
        now = self.deps.ledger.clock()
        proposals = [p for p in self.records.pending_proposals() if p.expires_at > now]
        clobbers = kept.open_clobbers(self.deps.ledger)
        return (
            len(proposals)
            + len(self.deps.ledger.pending_requests())
            + len(clobbers)
            + len(self.conflicts())
        )

    def stale_proposals(self) -> dict[str, str]:
        """Pending proposals that can no longer be confirmed because their note changed (or
        appeared, or went) since they were made: proposal id → why, in words."""
        out: dict[str, str] = {}
        for p in self.records.pending_proposals():
            try:
                raw = self.deps.vault.read_full(p.path, self.deps.config.limits.note_max_bytes * 2)
                current = Current(raw[1])
            except NotFound:
                current = Current(None)
            try:
                gates.check_revision(p.path, current, p.expected_revision)
            except Exists:
                out[p.proposal_id] = (
                    "A note now exists at this path, and this proposal would not replace it: "
                    "confirming is refused. Reject it; the agent can propose again."
                )
            except Conflict:
                out[p.proposal_id] = (
                    "The note was removed since this proposal was made"
                    if current.raw is None
                    else "The note changed since this proposal was made"
                ) + ": confirming is refused. Reject it; the agent can propose again."
        return out

    def stamp(self) -> str:
        """Changes whenever the ledger records anything the owner's pages show, and whenever
        the index takes in notes changed outside hoard (another editor, a ``git pull``): the
        watcher applies those as they happen; without it, this runs the stat walk."""
        with contextlib.suppress(DatabaseError):
            self.deps.ensure_fresh()
        return f"{activity.change_stamp(self.deps.ledger)}-{self.deps.index.generation}"

    # -- activity ----------------------------------------------------------------------------

    def events(self, f: EventFilter) -> list[Event]:
        return activity.recent_events(
            self.deps.ledger,
            caller=f.caller,
            tool=f.tool,
            path_prefix=f.path_prefix,
            decision=f.decision,
            limit=f.limit,
        )

    def archived(self) -> list[ArchivedRow]:
        """Archived notes whose path is still free (restorable in place)."""
        vault = self.deps.vault
        rows = activity.archived_revisions(self.deps.ledger)
        return [a for a in rows if vault.note_size(a.path) is None]

    # -- browse ------------------------------------------------------------------------------

    def tags(self) -> list[tuple[str, int]]:
        self.deps.ensure_fresh()
        return facets.tag_counts(self.deps.index.reader())

    def tagged(self, tag: str) -> list[tuple[str, str]]:
        self.deps.ensure_fresh()
        return facets.notes_tagged(self.deps.index.reader(), tag)

    def titles(self, paths: list[str]) -> dict[str, str]:
        """The indexed title of each of ``paths`` that is a note with one."""
        self.deps.ensure_fresh()
        return facets.titles_of(self.deps.index.reader(), paths)

    def recent(self, limit: int = 30) -> list[tuple[str, str, int]]:
        self.deps.ensure_fresh()
        return facets.recent_notes(self.deps.index.reader(), limit)

    def attachment(self, path: str) -> tuple[str, bytes]:
        """A file of the vault a note shows (an image) or a search found (an attachment):
        ``(normalised path, bytes)``, up to the size attachments are indexed at (``[attachments]
        max_mb``; images up to :data:`MAX_IMAGE_BYTES` whatever it says). Protected paths
        are refused, like ignored, dot and symlinked ones."""
        rel = normalize_rel_path(path)
        if self.deps.access.is_protected(rel):
            raise Protected(f"{rel!r} is protected", path=rel)
        largest = max(MAX_IMAGE_BYTES, self.deps.config.attachments.max_mb * 1000 * 1000)
        rel, data, size = self.deps.vault.read_file(rel, largest + 1)
        if size > largest:
            raise TooLarge(f"{rel!r} is {size} bytes", path=rel, size=size, max_bytes=largest)
        return rel, data

    def find_attachment(self, target: str, source: str = "") -> str | None:
        """The vault path of the file an embed names (``![[diagram.png]]``): a path from
        the vault root, else the name next to ``source``, at the root, or anywhere (the
        shallowest); ``None`` when there is none or it is protected."""
        try:
            rel = normalize_rel_path(target)
        except PathRejected:
            return None
        folder = source.rpartition("/")[0]
        tried = [rel] if "/" in rel else [f"{folder}/{rel}" if folder else rel, rel]
        for path in tried:
            if self.deps.vault.file_size(path) is not None:
                return None if self.deps.access.is_protected(path) else path
        if "/" in rel:
            return None
        _, entries, _ = self.deps.vault.list_dir("", True, FIND_ATTACHMENT_LIMIT)
        found = sorted(
            (e.path for e in entries if e.kind == "file" and e.path.rpartition("/")[2] == rel),
            key=lambda p: (p.count("/"), p),
        )
        found = [p for p in found if not self.deps.access.is_protected(p)]
        return found[0] if found else None

    def resolve(self, target: str, source: str = "") -> str | None:
        """The note a wikilink target names (seen from ``source``), or ``None``."""
        self.deps.ensure_fresh()
        return facets.resolve_target(self.deps.index.reader(), target, source)
