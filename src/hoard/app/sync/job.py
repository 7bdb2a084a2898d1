"""The sync job: pull the remote through hoard's write machinery, push hoard's commits, and
remember honestly how that went.

One run: fetch the remote's branch into a private ref (no file of the vault changes) →
under the git lock, commit edits made outside hoard as their own commit → check the remote
still descends from the last sync (a force-push stops everything and waits for the owner) →
replay hoard's commits on the remote's (:mod:`~hoard.app.sync.replay`: conflicts keep both
sides) → bring the work tree to the new tip through the ledger
(:mod:`~hoard.app.sync.apply`) → move the branch, compare-and-swap → push (never forced).
The branch moves only after every file holds the new tip's bytes, so a crash anywhere leaves
files the ledger explains and a next run that completes the pull.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from hoard.adapters.fs import failpoints
from hoard.adapters.vcs.git import Git, GitFailed
from hoard.adapters.vcs.repo import PushRejected, SyncRepo
from hoard.adapters.vcs.sync_state import SyncState, SyncStateFile
from hoard.app.sync.apply import WorkTree
from hoard.app.sync.permit import SingleProcess, SyncPermit
from hoard.app.sync.replay import replay
from hoard.app.writes.core import GIT_LOCK, GIT_LOCK_TIMEOUT_S, WriteCore
from hoard.core.errors import HoardError
from hoard.core.policy import Caller
from hoard.core.sync_results import OpenConflict, SyncRunResult
from hoard.core.sync_rules import remote_label

log = logging.getLogger("hoard.sync")

FETCHED = "refs/hoard/sync/remote"
"""The remote's branch as last fetched (a private ref: git's own remote-tracking refs are
left to the owner)."""
BASE = "refs/hoard/sync/base"
"""The last commit both sides had."""
OUTSIDE_AUTHOR = "outside-hoard"


class Waiting(Exception):
    """The remote rewrote its history; sync stops until the owner accepts it."""


@dataclass(slots=True)
class _Pull:
    pulled: str | None = None
    changed: list[str] = field(default_factory=list)
    conflicts: list[OpenConflict] = field(default_factory=list)
    outside: str | None = None


class SyncJob:
    def __init__(self, core: WriteCore, permit: SyncPermit | None = None) -> None:
        self.core = core
        self.git_config = core.config.git
        self.remote = self.git_config.remote
        self.label = remote_label(self.remote)
        self.permit = permit or SingleProcess()
        root = core.vault.root
        self.repo = SyncRepo(root)
        self.git = Git(root)
        self.worktree = WorkTree(core, self.repo)
        self.state_file = SyncStateFile(core.deps.state_dir / "sync.json")
        self.state: SyncState = self.state_file.load()
        self.caller = Caller(f"git:{self.label}", frozenset({"write"}), "direct")

    @property
    def enabled(self) -> bool:
        return bool(self.remote)

    def branch(self) -> str | None:
        return self.git_config.branch or self.repo.branch()

    def _save(self, **changes: object) -> None:
        self.state = self.state_file.update(**changes)

    # -- one run ---------------------------------------------------------------------------------

    def run(self, *, accept_remote: bool = False) -> tuple[SyncRunResult, str | None]:
        """Pull, then push; the run's result and its error in words (``None``: it worked).
        Nothing is raised: a failure is remembered for the status and returned."""
        result = SyncRunResult(None)
        if not self.enabled or not self.permit.may_sync():
            return result, None
        pull = _Pull()
        try:
            pull = self._pull(accept_remote)
            pushed = self._push_or_repull(pull)
        except Waiting as exc:
            return SyncRunResult(None), str(exc)
        except (GitFailed, HoardError) as exc:  # HoardError: a note stayed locked too long
            message = str(exc) if isinstance(exc, GitFailed) else f"{exc.code}: {exc.message}"
            self._failed(message)
            log.warning("sync with %s failed: %s", self.label, message)
            return SyncRunResult(pull.pulled, pull.changed, pull.conflicts, pull.outside), message
        return SyncRunResult(
            pulled=pull.pulled,
            changed=pull.changed,
            conflicts=pull.conflicts,
            outside_commit=pull.outside,
            pushed=pushed,
        ), None

    def _push_or_repull(self, pull: _Pull) -> str | None:
        try:
            return self._push()
        except PushRejected:  # the remote moved since the fetch: integrate it and retry once
            again = self._pull(False)
            pull.changed += again.changed
            pull.conflicts += again.conflicts
            pull.pulled = again.pulled or pull.pulled
            return self._push()

    def _failed(self, message: str) -> None:
        now = time.time()
        unpushed = self.unpushed_count() > 0
        since = self.state.push_failing_since
        self._save(
            last_error=message,
            last_error_at=now,
            push_failing_since=(since or now) if unpushed else since,
        )

    def remote_tip(self) -> str | None:
        """The remote's branch as last seen: the last fetch, else (before the first sync)
        git's own remote-tracking ref of a clone."""
        return self.repo.resolve(FETCHED) or self.repo.resolve(
            f"refs/remotes/{self.remote}/{self.branch()}"
        )

    def unpushed(self) -> tuple[int, float | None]:
        """Commits here that the remote lacks, and the oldest one's commit time."""
        head = self.repo.resolve("HEAD")
        if head is None or not self.git_config.pushes:
            return 0, None
        try:
            return self.repo.count_between(self.remote_tip(), head)
        except GitFailed:
            return 0, None

    def unpushed_count(self) -> int:
        return self.unpushed()[0]

    # -- pull ------------------------------------------------------------------------------------

    def _pull(self, accept_remote: bool) -> _Pull:
        branch = self.branch()
        if branch is None:
            raise GitFailed(
                "the vault is not a git work tree on a branch (no repository, or a detached "
                "HEAD); sync needs a clone with a branch checked out"
            )
        fetched = self.repo.fetch(self.remote, branch, FETCHED)
        failpoints.hit("sync.fetched")
        out = _Pull()
        with self.core.locks.lock(GIT_LOCK, GIT_LOCK_TIMEOUT_S):
            out.outside = self._commit_outside_edits()
            head = self.repo.resolve("HEAD")
            base = self.repo.resolve(BASE)
            if fetched is None:
                self._save(last_pull_at=time.time(), last_pull_commit=None, rewritten=None)
                return out
            if base is not None and not accept_remote and not self.repo.is_ancestor(base, fetched):
                self._save(rewritten=fetched)
                raise Waiting(
                    f"the remote {self.label} rewrote its history (its {branch} no longer holds "
                    f"{base[:12]}, the last commit both sides had); nothing was overwritten. "
                    "Sync waits: check the remote, then run `hoard sync --accept-remote`."
                )
            tip = self._new_tip(head, base if not accept_remote else None, fetched, out)
            if tip != head:
                reason = f"pulled {fetched[:12]} from {self.label}"
                out.changed = self.worktree.bring(head, tip, reason, caller=self.caller)
                failpoints.hit("sync.applied")
                self.repo.update_ref("HEAD", tip, head)
                self.repo.reset_index(tip)
                if fetched != head:
                    out.pulled = fetched
            self.repo.update_ref(BASE, fetched, None)
            self._save(last_pull_at=time.time(), last_pull_commit=fetched, rewritten=None)
        return out

    def _new_tip(self, head: str | None, base: str | None, fetched: str, out: _Pull) -> str:
        if head is None:
            return fetched
        if self.repo.is_ancestor(fetched, head):
            return head
        if self.repo.is_ancestor(head, fetched):
            return fetched
        base = base if base is not None and self.repo.is_ancestor(base, head) else None
        base = base or self.repo.merge_base(head, fetched)
        done = replay(self.repo, base, head, fetched, time.strftime("%Y-%m-%d", time.gmtime()))
        out.conflicts = done.conflicts + done.renamed
        if done.renamed:
            known = self.state.renamed or []
            pairs = [[c.path, c.sibling] for c in done.renamed]
            self._save(renamed=known + [p for p in pairs if p not in known])
        return done.tip

    def forget_rename(self, hoards_name: str) -> None:
        """The owner resolved the rename whose hoard-side name is ``hoards_name``."""
        left = [p for p in self.state.renamed or [] if p[1] != hoards_name]
        self._save(renamed=left or None)

    def _commit_outside_edits(self) -> str | None:
        """Edits made outside hoard (an editor, a script) become their own commit first, so
        sync never sweeps them into another or runs over them."""
        dirty = self.repo.dirty()
        if not dirty:
            return None
        message = f"outside edits: {len(dirty)} file(s) changed outside hoard\n\n" + "".join(
            f"{p}\n" for p in dirty[:50]
        )
        made = self.git.commit(dirty, message, OUTSIDE_AUTHOR)
        if made is not None:
            self.core.records.event(
                "git_sync", self.caller.name, None, None, made, "committed", message[:1000]
            )
        return made

    # -- push ------------------------------------------------------------------------------------

    def _push(self) -> str | None:
        if not self.git_config.pushes:
            return None
        branch = self.branch()
        head = self.repo.resolve("HEAD")
        remote_tip = self.repo.resolve(FETCHED)
        if head is None or branch is None or head == remote_tip:
            if self.state.push_failing_since is not None:
                self._save(push_failing_since=None, last_error=None)
            return None
        try:
            self.repo.push(self.remote, head, branch)
        except GitFailed as exc:
            if not isinstance(exc, PushRejected):
                self._failed(str(exc))
            raise
        self.repo.update_ref(FETCHED, head, None)
        self.repo.update_ref(BASE, head, None)
        self._save(
            last_push_at=time.time(),
            last_push_commit=head,
            push_failing_since=None,
            last_error=None,
            last_error_at=None,
        )
        return head
