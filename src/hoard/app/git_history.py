"""The git log of a note beside its ledger events (``hoard history PATH --git``)."""

from __future__ import annotations

from hoard.adapters.vcs.git import Git, GitFailed, LogEntry
from hoard.app.deps import Deps
from hoard.core.errors import IoError
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller


class GitHistory:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.git = Git(deps.vault.root)

    def log(self, path: str, limit: int = 100, *, caller: Caller) -> list[LogEntry]:
        """The commits that touched the note (following renames), newest first; empty when
        the vault is not a git work tree."""
        self.deps.access.require("read", caller=caller)
        rel = normalize_note_path(path)
        self.deps.access.check_visible(rel, caller=caller)
        if not self.git.is_work_tree():
            return []
        try:
            return self.git.log(rel, limit)
        except GitFailed as exc:
            raise IoError(str(exc)) from exc
