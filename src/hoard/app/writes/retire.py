"""vault_archive, vault_restore and vault_history: retiring notes without deleting a byte,
bringing them back exactly, and reading what the ledger kept."""

from __future__ import annotations

import base64
import logging

from hoard.adapters.fs import atomic, failpoints
from hoard.adapters.index.graph import backlinks
from hoard.adapters.ledger import kept
from hoard.adapters.ledger.records import Revision
from hoard.app.deps import no_paths
from hoard.app.writes.core import WriteCore, attempted
from hoard.core import gates
from hoard.core.choices import ArchiveReason, refuse_unless_one_of
from hoard.core.errors import (
    Exists,
    InvalidArgument,
    IoError,
    NotFound,
    PrivateNote,
)
from hoard.core.gates import Current
from hoard.core.models import (
    ArchiveResult,
    EventInfo,
    HistoryResult,
    RestoreResult,
    RevisionContent,
    RevisionInfo,
)
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller, credited
from hoard.core.times import iso

HISTORY_PAGE = 500
"""Most events one vault_history answer holds; older ones come in further pages."""

log = logging.getLogger("hoard.writes")


class Retirement:
    def __init__(self, core: WriteCore) -> None:
        self.core = core

    # -- vault_archive, vault_restore, vault_history --------------------------------------------

    @attempted("vault_archive")
    def archive(
        self,
        path: str,
        reason: ArchiveReason,
        expected_revision: str,
        *,
        caller: Caller,
        confirming: bool = False,
        proposer: str | None = None,
        dry_run: bool = False,
    ) -> ArchiveResult:
        """Archive the note (or propose to); ``proposer`` names who proposed the archive
        being confirmed, credited in the ledger beside the caller. ``dry_run``: every gate,
        and the notes that link to it, changing nothing (status ``dry_run``)."""
        rel = self.core.target(path, caller=caller)
        refuse_unless_one_of("reason", reason, ArchiveReason)
        if not isinstance(expected_revision, str) or not expected_revision:
            raise InvalidArgument("expected_revision is required to archive a note")
        with self.core.locks.lock(rel):
            current = self.core.current(rel)
            raw: bytes = self.core.guarded(
                "vault_archive",
                rel,
                lambda: current.revision,
                lambda: self._archivable(rel, current, expected_revision, caller),
                caller=caller,
            )
            inbound = self._inbound(rel, caller)
            if dry_run:
                return ArchiveResult("dry_run", rel, None, revision_of(raw), reason, inbound)
            if caller.write_mode == "propose" and not confirming:
                p = self.core.propose(
                    "vault_archive",
                    rel,
                    b"",
                    raw,
                    expected_revision,
                    {"reason": reason},
                    caller=caller,
                )
                return ArchiveResult(
                    "proposed",
                    rel,
                    None,
                    revision_of(raw),
                    reason,
                    inbound,
                    p.proposal_id,
                    iso(p.expires_at),
                    p.diff,
                )
            revision_id = self._preserve_and_unlink(rel, raw, reason, caller, proposer)
        return self.core.stamp(
            ArchiveResult("archived", rel, revision_id, revision_of(raw), reason, inbound)
        )

    def _inbound(self, rel: str, caller: Caller) -> list[str]:
        """The notes ``caller`` may see that link to ``rel``."""
        self.core.refresh(rel)  # a note saved since the last sync must resolve its links
        seen = self.core.deps.access.visibility(caller=caller)
        return [
            p
            for p in self.core.deps.from_index(
                lambda: backlinks(self.core.deps.index.reader(), rel), no_paths
            )
            if p != rel and (seen is None or seen(p))
        ]

    def _archivable(
        self, rel: str, current: Current, expected_revision: str, caller: Caller
    ) -> bytes:
        """The gate of vault_archive: the note exists, is not a private note the caller may
        not change, is the revision the caller read, and is no stale view of a newer revision
        another replica wrote."""
        if current.raw is None:
            raise NotFound(f"no note at {rel!r}", path=rel)
        if gates.private_locked(rel, caller, self.core.config):
            raise PrivateNote(
                f"{rel!r} is a private note: it is never archived through the server", path=rel
            )
        gates.check_revision(rel, current, expected_revision)
        self.core.check_head(rel, current)
        return current.raw

    def _preserve_and_unlink(
        self, rel: str, raw: bytes, reason: str, caller: Caller, proposer: str | None
    ) -> str:
        """The exact bytes into the ledger first (durably, with the intent), then the file
        goes; returns the preserved revision's id."""
        sha = revision_of(raw)
        failpoints.hit("archive.locked")
        records = self.core.records
        name = credited(caller, proposer)
        intent, rev = records.begin_change("vault_archive", name, rel, raw, None, reason)
        assert rev is not None
        failpoints.hit("archive.preserved")
        with self.core.failure_recorded("vault_archive", rel, sha, sha, intent, caller=caller):
            atomic.unlink(self.core.vault, rel)
        failpoints.hit("archive.unlinked")
        self.core.refresh(rel)
        event = records.event(
            "vault_archive", name, rel, sha, None, reason, rev.revision_id, intent_id=intent
        )
        self.core.commit("vault_archive", [rel], [event], caller=caller)
        return rev.revision_id

    @attempted("vault_restore")
    def restore(
        self,
        revision_id: str,
        path: str | None = None,
        *,
        caller: Caller,
        confirming: bool = False,
        proposer: str | None = None,
    ) -> RestoreResult:
        gates.require_scope(caller, "write")
        if not isinstance(revision_id, str) or not revision_id:
            raise InvalidArgument("revision_id is required")
        rev, content = self._visible_revision(revision_id, caller)
        rel = self.core.target(path or rev.path, caller=caller)
        with self.core.locks.lock(rel):
            current = self.core.current(rel)

            def gate() -> None:
                if current.raw is not None:
                    raise Exists(
                        f"{rel!r} exists; restore never overwrites (archive it or "
                        "pick another path)",
                        current_revision=current.revision,
                    )

            self.core.guarded("vault_restore", rel, lambda: current.revision, gate, caller=caller)
            if caller.write_mode == "propose" and not confirming:
                p = self.core.propose(
                    "vault_restore",
                    rel,
                    content,
                    None,
                    None,
                    {"revision_id": revision_id},
                    caller=caller,
                )
                return RestoreResult(
                    "proposed", rel, revision_id, rev.sha256, p.proposal_id, iso(p.expires_at)
                )
            self._recreate(rel, content, revision_id, rev.sha256, caller, proposer)
        return self.core.stamp(RestoreResult("restored", rel, revision_id, rev.sha256))

    def _recreate(
        self,
        rel: str,
        content: bytes,
        revision_id: str,
        sha: str,
        caller: Caller,
        proposer: str | None,
    ) -> None:
        """Create the file exclusively with the preserved bytes and check they landed."""
        records = self.core.records
        name = credited(caller, proposer)
        intent, _ = records.begin_change("vault_restore", name, rel, None, sha, "restored")
        with self.core.failure_recorded("vault_restore", rel, None, None, intent, caller=caller):
            atomic.create_exclusive(self.core.vault, rel, content, "restore")
        if self.core.current(rel).revision != sha:
            raise IoError(
                f"restored bytes of {rel!r} do not match revision {revision_id}'s SHA-256",
                path=rel,
            )
        self.core.refresh(rel)
        event = records.event(
            "vault_restore", name, rel, None, sha, "restored", revision_id, intent_id=intent
        )
        self.core.commit("vault_restore", [rel], [event], caller=caller)

    def history(
        self,
        path: str | None = None,
        revision_id: str | None = None,
        offset: int = 0,
        *,
        caller: Caller,
    ) -> HistoryResult | RevisionContent:
        """One revision's content, or a note's revisions and a page of its events (the
        ``HISTORY_PAGE`` newest after skipping ``offset``)."""
        gates.require_scope(caller, "read")
        if revision_id:
            rev, content = self._visible_revision(revision_id, caller, kept_too=True)
            try:
                text, encoding = content.decode("utf-8"), "utf-8"
            except UnicodeDecodeError:
                text, encoding = base64.b64encode(content).decode(), "base64"
            return RevisionContent(rev.revision_id, rev.path, rev.sha256, rev.size, text, encoding)
        if not path:
            raise InvalidArgument("give a path or a revision_id")
        rel = normalize_note_path(path)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidArgument("offset must be a whole number, 0 or more")
        if not self.core.deps.access.in_reach(rel, caller=caller):
            return HistoryResult(rel, [], [], truncated=False, next_offset=None, kept=[])
        self.core.deps.access.check_visible(rel, caller=caller)
        events = self.core.records.events_of(rel, HISTORY_PAGE + 1, offset)
        more = len(events) > HISTORY_PAGE
        return HistoryResult(
            rel,
            [
                RevisionInfo(r.revision_id, r.sha256, r.size, r.reason, r.caller, iso(r.at))
                for r in self.core.records.revisions_of(rel)
            ],
            [
                EventInfo(iso(e.at), e.tool, e.caller, e.decision, e.before, e.after, e.reason)
                for e in events[-HISTORY_PAGE:]
            ],
            truncated=more,
            next_offset=offset + HISTORY_PAGE if more else None,
            kept=[
                RevisionInfo(k.sha256, k.sha256, k.size, k.decision, k.caller, iso(k.at))
                for k in kept.kept_of(self.core.deps.ledger, rel)
            ],
        )

    def _visible_revision(
        self, revision_id: str, caller: Caller, *, kept_too: bool = False
    ) -> tuple[Revision, bytes]:
        """A preserved revision (with ``kept_too``, also kept bytes by their SHA-256), or,
        when it is of a note the caller may not see, the same ``not_found`` as for a
        revision that does not exist (never its path)."""
        if kept_too and (found := self._kept(revision_id, caller)) is not None:
            return found
        rev, content = self.core.records.revision(revision_id)
        if not self.core.deps.access.can_see(rev.path, caller=caller):
            raise NotFound(f"no preserved revision {revision_id!r}", revision_id=revision_id)
        return rev, content

    def _kept(self, sha256: str, caller: Caller) -> tuple[Revision, bytes] | None:
        """The kept bytes of revision ``sha256`` at a path the caller may see, if any."""
        ledger = self.core.deps.ledger
        content = kept.kept_bytes(ledger, sha256) if len(sha256) == 64 else None
        if content is None:
            return None
        access = self.core.deps.access
        for path in kept.paths_of(ledger, sha256):
            if access.can_see(path, caller=caller):
                return Revision(
                    revision_id=sha256,
                    path=path,
                    sha256=sha256,
                    size=len(content),
                    reason="kept",
                    caller="",
                    at=0.0,
                ), content
        return None
