"""Git sync as the surfaces call it: the status, one sync on demand, resolving a kept
conflict, the ``synced`` mark on write results, and the background runner of a server."""

from __future__ import annotations

from typing import Literal, TypeVar

from hoard.app.sync.job import SyncJob
from hoard.app.sync.permit import SyncPermit
from hoard.app.sync.resolve import Resolver
from hoard.app.sync.runner import SyncRunner
from hoard.app.sync.status import SyncReport
from hoard.app.writes.write_path import WritePath
from hoard.core import gates
from hoard.core.errors import InvalidArgument
from hoard.core.policy import Caller
from hoard.core.sync_results import ConflictResolved, OpenConflict, SyncRunResult, SyncStatus

R = TypeVar("R")


class Sync:
    def __init__(self, writes: WritePath, permit: SyncPermit | None = None) -> None:
        self.writes = writes
        self.core = writes.core
        self.job = SyncJob(self.core, permit)
        self.report = SyncReport(self.job)
        self.runner = SyncRunner(self.job)
        self.stamp = self.report.stamp
        self.core.stamp = self.report.stamp
        self.warning = self.report.warning
        self.conflicts = self.report.conflicts
        self.resolver = Resolver(writes, self.job)

    @property
    def enabled(self) -> bool:
        return self.job.enabled

    def start(self) -> None:
        if self.job.enabled:
            self.core.committed = self.runner.committed
            self.runner.start()

    def stop(self) -> None:
        self.runner.stop()

    def open_conflicts(self) -> list[OpenConflict]:
        """The kept conflicts that wait for the owner (none while sync is off)."""
        return self.report.conflicts() if self.job.enabled else []

    def status(self, *, caller: Caller) -> SyncStatus:
        gates.require_scope(caller, "read")
        return self.report.status()

    def sync(self, *, caller: Caller, accept_remote: bool = False) -> SyncRunResult:
        """Pull, then push, now; the result carries the status after the run."""
        gates.require_scope(caller, "write")
        if not self.job.enabled:
            raise InvalidArgument("no git remote is configured ([git] remote in hoard.toml)")
        result, error = self.runner.run_now(accept_remote=accept_remote)
        return SyncRunResult(
            pulled=result.pulled,
            changed=result.changed,
            conflicts=result.conflicts,
            outside_commit=result.outside_commit,
            pushed=result.pushed,
            error=error,
            status=self.report.status(),
        )

    def resolve(
        self, sibling: str, keep: Literal["remote", "mine"], *, caller: Caller
    ) -> ConflictResolved:
        """Resolve a kept conflict: ``remote`` leaves the path as it is, ``mine`` puts the
        sibling's version there (a note without its conflict fields; a removal when hoard
        had removed the note); either way the sibling is archived (its bytes stay in the
        ledger). Binary siblings are resolved the same way."""
        return self.resolver.resolve(sibling, keep, caller=caller)
