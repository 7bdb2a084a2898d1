"""The owner's upkeep and a caller's view of its rights: ``hoard check``, ``hoard index``,
the startup report, vault_policy and vault_request_access."""

from __future__ import annotations

from hoard.adapters.index.graph import broken_links
from hoard.adapters.index.store import ProgressFn, SyncReport
from hoard.adapters.store_errors import DatabaseError
from hoard.app.deps import Deps
from hoard.app.freshness import IndexKeeper
from hoard.core.contract import check_contract
from hoard.core.errors import HoardError, InvalidArgument
from hoard.core.models import (
    AccessRequestResult,
    AttachmentIssue,
    AttachmentsIndexed,
    BrokenLink,
    CheckResult,
    CheckViolation,
    IndexResult,
    PolicyResult,
)
from hoard.core.policy import Caller, may_confirm_own, policy_notes
from hoard.core.reach import glob_in_reach
from hoard.core.times import iso


class Maintenance:
    def __init__(self, deps: Deps, keeper: IndexKeeper) -> None:
        self.deps = deps
        self.keeper = keeper

    def request_access(self, glob: str, reason: str, *, caller: Caller) -> AccessRequestResult:
        """A pending request for the owner, with how the owner approves it from the CLI."""
        self.deps.access.require("read", caller=caller)
        if not isinstance(glob, str) or not isinstance(reason, str):
            raise InvalidArgument("glob and reason must be strings")
        req = self.deps.ledger.request_access(caller.name, glob, reason)
        return AccessRequestResult(
            request_id=req.request_id,
            status="pending",
            glob=req.glob,
            reason=req.reason,
            message="The vault owner can approve this with: hoard grant --approve "
            + req.request_id,
        )

    def policy(self, *, caller: Caller) -> PolicyResult:
        config = self.deps.config
        grants = [
            {"grant_id": g.grant_id, "glob": g.glob, "expires_at": iso(g.expires_at)}
            for g in self.deps.ledger.active_grants()
            if g.caller == caller.name
        ]
        return PolicyResult(
            caller=caller.name,
            scopes=sorted(caller.scopes),
            write_mode=caller.write_mode,
            private=[g for g in config.private if glob_in_reach(g, caller.read_globs)],
            protected=[g for g in config.protected if glob_in_reach(g, caller.read_globs)],
            grants=grants,
            notes=policy_notes(caller, bool(config.protected)),
            confirm_own=may_confirm_own(caller),
            read=list(caller.read_globs),
            write=list(caller.write_globs),
        )

    def check(self) -> CheckResult:
        """Every non-private note against the contract, plus every broken link."""
        vault, config = self.deps.vault, self.deps.config
        violations: list[CheckViolation] = []
        checked = skipped = 0
        for fs in sorted(vault.walk(), key=lambda f: f.path):
            if self.deps.access.is_private(fs.path):
                skipped += 1
                continue
            checked += 1
            try:
                _, raw = vault.read_full(fs.path, config.limits.note_max_bytes)
            except HoardError as exc:
                violations.append(CheckViolation(fs.path, "file", exc.code, exc.message))
                continue
            for v in check_contract(raw, config.contract):
                violations.append(CheckViolation(fs.path, v.field, v.rule, v.message))
            if (links := vault.link_count(fs.path)) > 1:
                violations.append(CheckViolation(fs.path, "file", "hard_link", hard_link(links)))
        broken = [BrokenLink(p, t, ln) for p, t, ln in self.deps.from_index(self._broken_links)]
        return CheckResult(checked, violations, broken, skipped)

    def _broken_links(self) -> list[tuple[str, str, int]]:
        self.deps.ensure_fresh()
        return broken_links(self.deps.index.reader())

    def reindex(
        self,
        rebuild: bool = False,
        progress: ProgressFn | None = None,
        attachment_progress: ProgressFn | None = None,
    ) -> IndexResult:
        index = self.deps.index
        try:
            report = index.rebuild(progress) if rebuild else index.sync(progress)
        except DatabaseError as exc:  # a broken or distrusted index: build it anew
            index.last_problem = f"index is unusable: {exc}"
            report, rebuild = index.rebuild(progress), True
        self.keeper.walked()
        return IndexResult(
            notes=index.note_count(),
            added=report.added,
            updated=report.updated,
            removed=report.removed,
            failed=report.failed,
            rebuilt=rebuild,
            elapsed_ms=round(report.elapsed_ms, 1),
            attachments=self.index_attachments(attachment_progress),
        )

    def index_attachments(self, progress: ProgressFn | None = None) -> AttachmentsIndexed | None:
        """Bring the attachments' text up to date (reading new and changed files in the
        extraction pool); ``None`` when attachments are off or the vault has none."""
        attachments = self.deps.attachments
        if attachments is None:
            return None
        r = attachments.sync(progress)
        if not r.present:
            return None
        issues = [AttachmentIssue(p, k, d) for p, k, d in r.problems]
        return AttachmentsIndexed(
            r.files, r.total_pages, r.added, r.updated, r.removed, r.extracted, r.elapsed_ms, issues
        )

    def startup_report(self, r: SyncReport) -> IndexResult:
        index = self.deps.index
        return IndexResult(
            index.note_count(),
            r.added,
            r.updated,
            r.removed,
            r.failed,
            index.last_problem is not None,
            round(r.elapsed_ms, 1),
            index.last_problem,
        )


def hard_link(links: int) -> str:
    return (
        f"the file has {links} hard links: its bytes are shared with a file elsewhere, "
        "perhaps outside the vault ([limits] refuse_hard_links = true refuses such notes)"
    )
