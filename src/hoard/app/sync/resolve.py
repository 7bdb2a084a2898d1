"""Resolving a conflict that sync kept: the owner keeps the version at the path (the
remote's) or hoard's (the sibling's), and the sibling is archived, its bytes in the ledger.

A note's sibling goes through vault_write and vault_archive. A binary file's sibling (an
image, a PDF) is no note, so it goes through the file path: the same ledger steps (the
prior bytes preserved with the intent, an atomic replace or unlink, the outcome, one
commit), without the note contract.
"""

from __future__ import annotations

from typing import Literal

from hoard.adapters.fs import atomic
from hoard.app.sync.job import SyncJob
from hoard.app.writes.write_path import WritePath
from hoard.core import gates
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path, normalize_rel_path
from hoard.core.policy import Caller
from hoard.core.sync_results import ConflictResolved
from hoard.core.sync_rules import conflict_of, removed_here, unmarked

Keep = Literal["remote", "mine"]
TOOL = "sync_resolve"


class Resolver:
    def __init__(self, writes: WritePath, job: SyncJob) -> None:
        self.writes = writes
        self.core = writes.core
        self.job = job

    def resolve(self, sibling: str, keep: Keep, *, caller: Caller) -> ConflictResolved:
        gates.require_scope(caller, "write")
        rel = normalize_rel_path(sibling)
        if keep not in ("remote", "mine"):
            raise InvalidArgument("keep must be 'remote' or 'mine'")
        renamed = {mine: theirs for theirs, mine in self.job.state.renamed or []}
        if rel in renamed:
            return self._renamed(renamed[rel], rel, keep, caller)
        original = conflict_of(rel)
        if original is None:
            raise InvalidArgument(f"{rel!r} is not a conflict copy", path=rel)
        for path in (rel, original):
            self.core.deps.access.check_visible(path, caller=caller)
        if rel.lower().endswith(".md"):
            return self._note(normalize_note_path(rel), original, keep, caller)
        return self._file(rel, original, keep, caller)

    def _note(self, rel: str, original: str, keep: Keep, caller: Caller) -> ConflictResolved:
        mine = self.core.current(rel)
        if mine.raw is None:
            raise NotFound(f"no conflict copy at {rel!r}", path=rel)
        revision = self.core.current(original).revision
        text = mine.raw.decode("utf-8", "replace")
        if keep == "mine" and removed_here(text):
            if revision is not None:  # hoard had removed the note: remove it again
                self.writes.retirement.archive(original, "superseded", revision, caller=caller)
            revision = None
        elif keep == "mine":
            revision = self.writes.write(original, unmarked(text), revision, caller=caller).revision
        archived = self.writes.retirement.archive(
            rel, "superseded", revision_of(mine.raw), caller=caller
        )
        return ConflictResolved(
            path=original,
            sibling=rel,
            kept=keep,
            revision=revision,
            sibling_revision_id=archived.revision_id,
        )

    def _renamed(self, theirs: str, mine: str, keep: Keep, caller: Caller) -> ConflictResolved:
        """A note both sides renamed differently: the name not kept is archived (the
        answer's ``path`` is the name kept, its ``sibling`` the one archived)."""
        kept, gone = (theirs, mine) if keep == "remote" else (mine, theirs)
        for path in (kept, gone):
            self.core.deps.access.check_visible(path, caller=caller)
        raw = self._read(gone)
        revision_id = None
        if raw is not None and gone.lower().endswith(".md"):
            done = self.writes.retirement.archive(
                gone, "superseded", revision_of(raw), caller=caller
            )
            revision_id = done.revision_id
        elif raw is not None:
            with self.core.locks.lock(gone):
                revision_id, event = self._archive(gone, raw, caller)
            self.core.commit(TOOL, [gone], [event], caller=caller)
        self.job.forget_rename(mine)
        there = self._read(kept)
        revision = None if there is None else revision_of(there)
        return ConflictResolved(
            path=kept, sibling=gone, kept=keep, revision=revision, sibling_revision_id=revision_id
        )

    def _file(self, rel: str, original: str, keep: Keep, caller: Caller) -> ConflictResolved:
        core = self.core
        events = []
        with core.locks.locks([original, rel]):
            mine = self._read(rel)
            if mine is None:
                raise NotFound(f"no conflict copy at {rel!r}", path=rel)
            there = self._read(original)
            if keep == "mine" and there != mine:
                events.append(self._replace(original, there, mine, caller))
                there = mine
            revision_id, event = self._archive(rel, mine, caller)
            events.append(event)
        core.commit(TOOL, [original, rel], events, caller=caller)
        revision = None if there is None else revision_of(there)
        return ConflictResolved(
            path=original,
            sibling=rel,
            kept=keep,
            revision=revision,
            sibling_revision_id=revision_id,
        )

    def _read(self, rel: str) -> bytes | None:
        """A file's bytes (``None``: absent); a symlink or anything but a file is refused."""
        return self.core.vault.plain_bytes(rel)

    def _replace(self, rel: str, before: bytes | None, data: bytes, caller: Caller) -> int:
        core = self.core
        after = revision_of(data)
        why = "kept hoard's version of a sync conflict"
        intent, _ = core.records.begin_change(TOOL, caller.name, rel, before, after, why)
        prior = None if before is None else revision_of(before)
        with core.failure_recorded(TOOL, rel, prior, after, intent, caller=caller):
            atomic.replace(core.vault, rel, data, "sync", previous=before)
        return core.records.event(TOOL, caller.name, rel, prior, after, "written", intent_id=intent)

    def _archive(self, rel: str, data: bytes, caller: Caller) -> tuple[str, int]:
        core = self.core
        sha = revision_of(data)
        intent, rev = core.records.begin_change(TOOL, caller.name, rel, data, None, "superseded")
        assert rev is not None
        with core.failure_recorded(TOOL, rel, sha, None, intent, caller=caller):
            atomic.unlink(core.vault, rel)
        event = core.records.event(
            TOOL, caller.name, rel, sha, None, "superseded", rev.revision_id, intent_id=intent
        )
        return rev.revision_id, event
