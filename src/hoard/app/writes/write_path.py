"""The only write path of hoard: every change to a note goes through :class:`WritePath`.

A write is: resolve the path safely → take the per-path lock → read the current bytes →
gates (validate, revision) → for a ``propose`` caller, record a proposal and stop → preserve
the prior bytes in the ledger (committed) → stage, fsync, rename, fsync the folder → update the
index → record the outcome. Every attempt, refusals included, is a ledger event. Nothing is
ever deleted: archiving preserves the exact bytes first and only then unlinks.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hoard.adapters.fs import atomic, failpoints
from hoard.adapters.ledger.records import Proposal, Records
from hoard.app.writes.common import encode_content, index_path_for, iso, links_to
from hoard.core import gates
from hoard.core.errors import (
    Conflict,
    Exists,
    HoardError,
    InvalidArgument,
    NotFound,
    ProposalExpired,
    ProposalNotFound,
)
from hoard.core.gates import Current
from hoard.core.links import note_keys
from hoard.core.models import (
    ArchiveResult,
    FileNoteResult,
    Preflight,
    ProposalInfo,
    ProposalsResult,
    RejectResult,
    RestoreResult,
    WriteResult,
)
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path, stem_of
from hoard.core.policy import Caller

if TYPE_CHECKING:
    from hoard.app.hoard import Hoard

log = logging.getLogger("hoard.writes")


class WritePath:
    def __init__(self, hoard: Hoard) -> None:
        from hoard.app.writes.file_note import FileNotes
        from hoard.app.writes.retire import Retirement

        self.hoard = hoard
        self.vault = hoard.vault
        self.config = hoard.config
        self.records = Records(hoard.ledger)
        self.lock_dir = hoard.state_dir / "locks"
        self._notes = FileNotes(self)
        self._retire = Retirement(self)
        self.recover = self._notes.recover
        self.history = self._retire.history

    def file_note(
        self,
        path: str,
        content: str,
        index_line: str | None = None,
        expected_revision: str | None = None,
        dry_run: bool = False,
        caller: Caller | None = None,
        *,
        confirming: bool = False,
    ) -> FileNoteResult:
        caller = caller or self.hoard.owner
        with self.attempt("vault_file_note", caller, path):
            return self._notes.file_note(
                path, content, index_line, expected_revision, dry_run, caller, confirming=confirming
            )

    def archive(
        self,
        path: str,
        reason: str,
        expected_revision: str,
        caller: Caller | None = None,
        *,
        confirming: bool = False,
    ) -> ArchiveResult:
        caller = caller or self.hoard.owner
        with self.attempt("vault_archive", caller, path):
            return self._retire.archive(
                path, reason, expected_revision, caller, confirming=confirming
            )

    def restore(
        self,
        revision_id: str,
        path: str | None = None,
        caller: Caller | None = None,
        *,
        confirming: bool = False,
    ) -> RestoreResult:
        caller = caller or self.hoard.owner
        with self.attempt("vault_restore", caller, path):
            return self._retire.restore(revision_id, path, caller, confirming=confirming)

    # -- helpers ---------------------------------------------------------------------------------

    def current(self, rel: str) -> Current:
        try:
            _, raw = self.vault.read_full(rel, self.config.limits.note_max_bytes * 2)
        except NotFound:
            return Current(None)
        return Current(raw)

    def target(self, path: str, caller: Caller, scope: str = "write") -> str:
        gates.require_scope(caller, scope)
        if not isinstance(path, str):
            raise InvalidArgument("path must be a string")
        rel = normalize_note_path(path)
        self.hoard.check_visible(rel, caller)
        return rel

    def refused(
        self, tool: str, caller: Caller, rel: str | None, before: str | None, exc: HoardError
    ) -> None:
        exc.ledgered = True
        try:
            self.records.event(
                tool, caller.name, rel, before, None, "refused", f"{exc.code}: {exc.message}"[:1000]
            )
        except Exception as log_exc:  # a refusal must still be reported to the caller
            log.error("could not record a refused %s: %s", tool, log_exc)

    def guarded(
        self,
        tool: str,
        caller: Caller,
        rel: str | None,
        before: Callable[[], str | None],
        fn: Callable[[], Any],
    ) -> Any:
        try:
            return fn()
        except HoardError as exc:
            self.refused(tool, caller, rel, before(), exc)
            raise

    def refresh(self, *rels: str) -> None:
        try:
            self.hoard.index.refresh_paths(list(rels))
        except Exception as exc:  # the file is written; the watcher or a stat walk catches up
            log.warning("index update after a write failed: %s", exc)

    def preflight(
        self, rel: str, new: bytes, current: Current, caller: Caller, expected_revision: str | None
    ) -> Preflight:
        violations = [v.as_dict() for v in gates.validate(rel, new, current, caller, self.config)]
        try:
            check = gates.check_revision(rel, current, expected_revision)
        except Exists:
            check = "exists"
        except Conflict:
            check = "conflict"
        conn = self.hoard.index.reader()
        _, skey = note_keys(rel)
        duplicates = [
            r[0]
            for r in conn.execute(
                "SELECT path FROM notes WHERE stem_key = ? AND path != ? ORDER BY path LIMIT 5",
                (skey, rel),
            )
        ]
        obligations: list[str] = []
        if not gates.is_private(rel, self.config) and stem_of(rel) != "_INDEX":
            idx = index_path_for(rel)
            idx_raw = self.current(idx).raw
            if idx_raw is None:
                obligations.append(
                    f"{idx} does not exist; vault_file_note creates it with a link to this note"
                )
            elif not links_to(idx_raw, rel):
                obligations.append(
                    f"{idx} does not link [[{stem_of(rel)}]]; vault_file_note adds the line"
                )
        return Preflight(current.revision, check, violations, duplicates, obligations)

    def propose(
        self,
        tool: str,
        rel: str,
        new: bytes,
        before: bytes | None,
        expected_revision: str | None,
        caller: Caller,
        args: dict[str, Any],
    ) -> Proposal:
        diff = (
            gates.unified_diff(rel, before, new)
            if tool != "vault_archive"
            else gates.unified_diff(rel, before, b"")
        )
        p = self.records.propose(
            caller.name,
            tool,
            rel,
            new,
            expected_revision,
            None if before is None else revision_of(before),
            args,
            diff,
            self.config.proposals.ttl_seconds,
        )
        self.records.event(
            tool,
            caller.name,
            rel,
            None if before is None else revision_of(before),
            revision_of(new),
            "proposed",
            p.proposal_id,
        )
        return p

    # -- vault_write -------------------------------------------------------------------------------

    def write(
        self,
        path: str,
        content: str,
        expected_revision: str | None = None,
        dry_run: bool = False,
        caller: Caller | None = None,
        *,
        tool: str = "vault_write",
        confirming: bool = False,
    ) -> WriteResult:
        caller = caller or self.hoard.owner
        with self.attempt(tool, caller, path):
            return self._write(path, content, expected_revision, dry_run, caller, tool, confirming)

    def _write(
        self,
        path: str,
        content: str,
        expected_revision: str | None,
        dry_run: bool,
        caller: Caller,
        tool: str,
        confirming: bool,
    ) -> WriteResult:
        rel = self.target(path, caller)
        new = encode_content(content)
        if dry_run:
            current = self.current(rel)
            pre = self.preflight(rel, new, current, caller, expected_revision)
            return WriteResult(
                "dry_run",
                rel,
                revision_of(new),
                current.revision,
                diff=gates.unified_diff(rel, current.raw, new),
                preflight=pre,
            )
        with atomic.path_lock(self.lock_dir, rel):
            current = self.current(rel)

            def gate() -> str:
                gates.refuse_violations(rel, gates.validate(rel, new, current, caller, self.config))
                return gates.check_revision(rel, current, expected_revision)

            self.guarded(tool, caller, rel, lambda: current.revision, gate)
            if caller.write_mode == "propose" and not confirming:
                p = self.propose(tool, rel, new, current.raw, expected_revision, caller, {})
                return WriteResult(
                    "proposed",
                    rel,
                    revision_of(new),
                    current.revision,
                    p.proposal_id,
                    iso(p.expires_at),
                    p.diff,
                )
            failpoints.hit("write.locked")
            self.apply(tool, caller, rel, new, current, "overwrite")
        return WriteResult("written", rel, revision_of(new), current.revision)

    def apply(
        self,
        tool: str,
        caller: Caller,
        rel: str,
        new: bytes,
        current: Current,
        reason: str,
        point: str = "write",
    ) -> None:
        """Preserve and record the intent (one durable transaction), replace, record the
        outcome; under the caller's lock."""
        after = revision_of(new)
        intent, _ = self.records.begin_change(tool, caller.name, rel, current.raw, after, reason)
        if current.raw is not None:
            failpoints.hit(f"{point}.preserved")
        try:
            atomic.replace(self.vault, rel, new, point, previous=current.raw)
        except HoardError as exc:
            self.records.event(
                tool,
                caller.name,
                rel,
                current.revision,
                None,
                "failed",
                f"{exc.code}: {exc.message}"[:1000],
                intent_id=intent,
            )
            exc.ledgered = True
            raise
        self.refresh(rel)
        failpoints.hit(f"{point}.indexed")
        self.records.event(
            tool, caller.name, rel, current.revision, after, "written", intent_id=intent
        )

    @contextlib.contextmanager
    def attempt(self, tool: str, caller: Caller, path: object) -> Iterator[None]:
        """Every attempt that is refused leaves a ledger event, whatever gate refused it
        (scope, grant, path, lock, contract, revision)."""
        try:
            yield
        except HoardError as exc:
            if not exc.ledgered:
                rel = path if isinstance(path, str) else None
                self.refused(tool, caller, rel, None, exc)
            raise

    def reconcile_intents(self) -> int:
        """Record the outcome of changes a crash interrupted, from the files as they are."""
        done = 0
        for intent_id, e in self.records.open_intents():
            if e.path is None:
                continue
            now = self.current(e.path).revision
            if now == e.after:
                decision = "written" if e.after is not None else e.reason or "archived"
            elif now == e.before:
                decision = "not_written"
            else:
                decision = "unknown"
            self.records.event(
                e.tool,
                e.caller,
                e.path,
                e.before,
                now,
                decision,
                "reconciled at startup after an interrupted change",
                intent_id=intent_id,
            )
            done += 1
        return done

    # -- proposals -------------------------------------------------------------------------------

    def pending(self, proposal_id: str) -> Proposal:
        if not isinstance(proposal_id, str) or not proposal_id:
            raise ProposalNotFound("no such proposal", proposal_id=proposal_id)
        try:
            p = self.records.proposal(proposal_id)
        except NotFound as exc:
            raise ProposalNotFound(f"no proposal {proposal_id!r}", proposal_id=proposal_id) from exc
        if p.decision is not None:
            raise ProposalNotFound(
                f"proposal {proposal_id!r} was already {p.decision}", proposal_id=proposal_id
            )
        if p.expires_at <= time.time():
            raise ProposalExpired(
                f"proposal {proposal_id!r} expired at {iso(p.expires_at)}", proposal_id=proposal_id
            )
        return p

    def confirm(self, proposal_id: str, caller: Caller | None = None) -> Any:
        """Re-run every gate against the file as it is now, then apply the proposal."""
        caller = caller or self.hoard.owner
        gates.require_scope(caller, "confirm")
        p = self.pending(proposal_id)
        text = p.content.decode("utf-8")
        if p.tool == "vault_write":
            result: Any = self.write(
                p.path,
                text,
                p.expected_revision,
                caller=caller,
                tool="vault_confirm",
                confirming=True,
            )
        elif p.tool == "vault_file_note":
            result = self.file_note(
                p.path,
                text,
                p.args.get("index_line"),
                p.expected_revision,
                caller=caller,
                confirming=True,
            )
        elif p.tool == "vault_archive":
            result = self.archive(
                p.path, p.args["reason"], p.expected_revision or "", caller=caller, confirming=True
            )
        else:
            result = self.restore(p.args["revision_id"], p.path, caller=caller, confirming=True)
        if not self.records.decide(p.proposal_id, "confirmed", caller.name):
            log.warning("proposal %s was decided twice", p.proposal_id)
        return result

    def reject(self, proposal_id: str, caller: Caller | None = None) -> RejectResult:
        caller = caller or self.hoard.owner
        gates.require_scope(caller, "confirm")
        p = self.pending(proposal_id)
        if not self.records.decide(p.proposal_id, "rejected", caller.name):
            raise ProposalNotFound(
                f"proposal {proposal_id!r} was already decided", proposal_id=proposal_id
            )
        self.records.event(
            "vault_reject", caller.name, p.path, p.base_revision, None, "rejected", p.proposal_id
        )
        return RejectResult(p.proposal_id, "rejected")

    def proposals(self, caller: Caller | None = None) -> ProposalsResult:
        caller = caller or self.hoard.owner
        gates.require_scope(caller, "read")
        seen = self.hoard.visibility(caller)
        return ProposalsResult(
            [
                ProposalInfo(
                    p.proposal_id,
                    p.tool,
                    p.path,
                    p.caller,
                    iso(p.created_at),
                    iso(p.expires_at),
                    p.diff,
                )
                for p in self.records.pending_proposals()
                if seen is None or seen(p.path)
            ]
        )
