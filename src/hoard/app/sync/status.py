"""What sync says about itself: the status every surface shows, the warning that follows a
push failing too long, and the ``synced`` mark on write results.

A write result never claims more than is true: with a remote configured it carries
``synced: false`` (its commit is on this machine, fsynced, and not yet on the remote: pushes
follow within seconds, never inside the write), and while pushes have failed for longer than
``[git] warn_after_s`` a ``sync_warning`` that says so.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TypeVar

from hoard.adapters.vcs.git import GitFailed
from hoard.app.sync.job import SyncJob
from hoard.core.sync_results import OpenConflict, SyncPoint, SyncStatus, Unpushed
from hoard.core.sync_rules import conflict_of
from hoard.core.times import iso

R = TypeVar("R")

NOT_WRITTEN = ("dry_run", "proposed")


class SyncReport:
    def __init__(self, job: SyncJob) -> None:
        self.job = job

    def warning(self) -> str | None:
        """Set while pushes have failed for longer than ``warn_after_s``."""
        state = self.job.state
        since = state.push_failing_since
        if not self.job.enabled or since is None:
            return None
        failing = time.time() - since
        if failing < self.job.git_config.warn_after_s:
            return None
        return (
            f"changes are saved and fsynced on this machine but have not reached the remote "
            f"{self.job.label}: pushes have failed for {_duration(failing)} "
            f"({state.last_error or 'no detail'})"
        )

    def stamp(self, result: R) -> R:
        """``result`` (a write's) with ``synced: false`` and the warning, when sync is on."""
        if not self.job.enabled or getattr(result, "status", None) in NOT_WRITTEN:
            return result
        if not dataclasses.is_dataclass(result) or not hasattr(result, "synced"):
            return result
        changed: R = dataclasses.replace(  # type: ignore[type-var]
            result, synced=False, sync_warning=self.warning()
        )
        return changed

    def conflicts(self) -> list[OpenConflict]:
        """Conflict siblings present in the vault (committed or not), with the path each
        stands beside, and notes renamed differently on both sides while both names
        exist."""
        try:
            out = self.job.repo.run("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        except GitFailed:
            return []
        found = []
        vault = self.job.core.vault
        for raw in sorted(set(out.split(b"\0"))):
            path = raw.decode("utf-8", "surrogateescape")
            original = conflict_of(path) if path else None
            if original is not None and vault.has_file(path):
                found.append(OpenConflict(original, path))
        for theirs, mine in self.job.state.renamed or []:
            if vault.has_file(theirs) and vault.has_file(mine):
                found.append(OpenConflict(theirs, mine, "renamed"))
        return found

    def status(self) -> SyncStatus:
        job = self.job
        state = job.state
        if not job.enabled:
            return SyncStatus(
                enabled=False,
                remote=None,
                branch=None,
                push=False,
                last_pull=None,
                last_push=None,
                unpushed=Unpushed(0, None),
                conflicts=[],
                last_error=None,
                last_error_at=None,
                push_failing_since=None,
                waiting=None,
                warning=None,
            )
        count, oldest = job.unpushed()
        waiting = (
            f"the remote rewrote its history (now at {state.rewritten[:12]}); sync waits "
            "for `hoard sync --accept-remote`"
            if state.rewritten
            else None
        )
        return SyncStatus(
            enabled=True,
            remote=job.label,
            branch=job.branch(),
            push=job.git_config.pushes,
            last_pull=_point(state.last_pull_at, state.last_pull_commit),
            last_push=_point(state.last_push_at, state.last_push_commit),
            unpushed=Unpushed(count, None if oldest is None else round(time.time() - oldest, 1)),
            conflicts=self.conflicts(),
            last_error=state.last_error,
            last_error_at=None if state.last_error_at is None else iso(state.last_error_at),
            push_failing_since=None
            if state.push_failing_since is None
            else iso(state.push_failing_since),
            waiting=waiting,
            warning=self.warning(),
        )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _point(at: float | None, commit: str | None) -> SyncPoint | None:
    return None if at is None else SyncPoint(iso(at), commit or "")
