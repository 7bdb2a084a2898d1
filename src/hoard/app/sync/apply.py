"""Bringing the work tree to the commit a pull built, through hoard's own write machinery:
each note the pull changes, adds or removes is preserved in the ledger first (its prior
bytes), credited to ``git:<remote>`` with the commit id, replaced atomically under its path
lock and re-indexed, so open pages and searches see it. A removed note is archived (its
bytes stay in the ledger). Other files (attachments, settings) are replaced atomically too;
their history is git's.
"""

from __future__ import annotations

import time

from hoard.adapters.fs import atomic, failpoints
from hoard.adapters.vcs.repo import SyncRepo
from hoard.app.writes.core import WriteCore
from hoard.core.errors import HoardError, NotFound
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller
from hoard.core.sync_rules import ConflictMark, blob_id, conflict_name, marked_copy

TOOL = "git_pull"


class WorkTree:
    def __init__(self, core: WriteCore, repo: SyncRepo) -> None:
        self.core = core
        self.repo = repo

    def bring(self, head: str | None, tip: str, reason: str, *, caller: Caller) -> list[str]:
        """Make every file that differs between ``head`` and ``tip`` hold ``tip``'s bytes;
        returns the paths changed (sorted). Idempotent: a file already right is left."""
        changed = []
        changes = self.repo.changes(head, tip)
        before = self.repo.entries(head, sorted(changes))
        for path, entry in sorted(changes.items()):
            if entry is not None and entry[0] in ("120000", "160000"):
                continue  # symlinks and submodules are git's, never followed or written
            data = None if entry is None else self.repo.blob(entry[1])
            if self._note(path) is not None:
                was = before.get(path)
                done = self._put_note(path, data, caller, reason, (tip, was and was[1]))
            else:
                done = self._put_file(path, data)
            if done:
                changed.append(path)
                failpoints.hit("sync.file")
        return changed

    def _note(self, path: str) -> str | None:
        try:
            rel = normalize_note_path(path)
        except HoardError:
            return None
        return None if self.core.vault.is_ignored(rel) or rel != path else rel

    def _put_note(
        self,
        rel: str,
        data: bytes | None,
        caller: Caller,
        reason: str,
        expected: tuple[str, str | None],
    ) -> bool:
        core = self.core
        with core.locks.lock(rel):
            try:
                current = core.current(rel)
            except HoardError:  # too large or not a plain file: git's bytes as a file
                return self._put_file(rel, data)
            if current.raw == data:
                return False
            if current.raw is not None and blob_id(current.raw) != expected[1]:
                self._keep_aside(rel, current.raw, expected[0], caller)
            if data is not None:
                core.apply(
                    TOOL, rel, data, current, reason, point="sync", commit=False, caller=caller
                )
                return True
            assert current.raw is not None
            core.check_head(rel, current)  # never removes a newer revision it cannot see
            records = core.records
            intent, _ = records.begin_change(TOOL, caller.name, rel, current.raw, None, reason)
            with core.failure_recorded(TOOL, rel, current.revision, None, intent, caller=caller):
                atomic.unlink(core.vault, rel)
            core.refresh(rel)
            records.event(
                TOOL, caller.name, rel, current.revision, None, "archived", reason, intent
            )
            return True

    def _keep_aside(self, rel: str, raw: bytes, tip: str, caller: Caller) -> None:
        """The note changed here after the pull read it (a write or an editor, just now):
        those bytes become a conflict sibling too, never silently replaced."""
        day = time.strftime("%Y-%m-%d", time.gmtime())
        sibling = conflict_name(rel, day, revision_of(raw))
        mark = ConflictMark(
            path=rel,
            local_revision=revision_of(raw),
            remote_revision=None,
            local_commit="uncommitted",
            remote_commit=tip,
        )
        with self.core.locks.lock(sibling):
            here = self.core.current(sibling)
            if here.raw is None:
                why = "changed here while a pull was applied; kept beside the remote's version"
                copy = marked_copy(raw, mark)
                self.core.apply(
                    TOOL, sibling, copy, here, why, point="sync", commit=False, caller=caller
                )

    def _put_file(self, path: str, data: bytes | None) -> bool:
        vault = self.core.vault
        try:
            if data is None:
                atomic.unlink(vault, path)
            else:
                held = vault.regular_bytes(path)
                if held == data:
                    return False
                atomic.replace(vault, path, data, "sync", previous=held)
        except NotFound:
            return False
        except HoardError as exc:
            if data is None and not vault.has_entry(path):
                return False
            raise exc
        return True
