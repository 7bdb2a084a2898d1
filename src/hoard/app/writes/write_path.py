"""The only write path of hoard: every change to a note goes through :class:`WritePath`.

A write is: resolve the path safely → take the per-path lock → read the current bytes →
gates (validate, revision) → for a ``propose`` caller, record a proposal and stop → preserve
the prior bytes in the ledger (committed) → stage, fsync, rename, fsync the folder → update the
index → record the outcome. Every attempt, refusals included, is a ledger event. Nothing is
ever deleted: archiving preserves the exact bytes first and only then unlinks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hoard.adapters.fs import failpoints
from hoard.adapters.ledger.records import Proposal
from hoard.app.writes.common import encode_content, index_path_for
from hoard.app.writes.core import WriteCore
from hoard.app.writes.file_note import FileNotes
from hoard.app.writes.retire import Retirement
from hoard.core import gates
from hoard.core.errors import (
    NotFound,
    ProposalExpired,
    ProposalNotFound,
)
from hoard.core.models import (
    ProposalInfo,
    ProposalsResult,
    RejectResult,
    WriteResult,
)
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller, credited
from hoard.core.times import iso

log = logging.getLogger("hoard.writes")


def proposal_paths(p: Proposal) -> list[str]:
    """The notes whose locks a proposal's decision takes, before the flow that applies it
    takes them again (and any more it needs): the note, and the other path the flow is known
    to change (the folder's _INDEX.md of a filing, the new path of a move), so the usual
    ones are taken in sorted order."""
    paths = [p.path]
    if p.tool == "vault_file_note":
        paths.append(index_path_for(p.path))
    new_path = p.args.get("new_path")
    if p.tool == "vault_move" and isinstance(new_path, str):
        paths.append(normalize_note_path(new_path))
    return paths


class WritePath:
    """vault_write, proposals and their decisions; file_note, archive and restore through
    their own flows, all on one :class:`~hoard.app.writes.core.WriteCore`."""

    def __init__(self, core: WriteCore) -> None:
        self.core = core
        self.deps = core.deps
        self.records = core.records
        self.locks = core.locks
        self.notes = FileNotes(core)
        """vault_file_note and the recovery of its transactions."""
        self.retirement = Retirement(core)
        """vault_archive, vault_restore and vault_history."""
        self.confirmers: dict[str, Callable[[Proposal, Caller], Any]] = {
            "vault_write": self._confirm_write,
            "vault_edit": self._confirm_write,  # an edit's proposal holds its result
            "vault_file_note": self._confirm_file_note,
            "vault_archive": self._confirm_archive,
            "vault_restore": self._confirm_restore,
        }
        """How to apply a confirmed proposal, by the tool that made it. Flows built on this
        write path that make proposals of their own (vault_move) register theirs here."""

    # -- helpers ---------------------------------------------------------------------------------

    # -- vault_write -------------------------------------------------------------------------------

    def write(
        self,
        path: str,
        content: str,
        expected_revision: str | None = None,
        dry_run: bool = False,
        *,
        caller: Caller,
        tool: str = "vault_write",
        confirming: bool = False,
        proposer: str | None = None,
    ) -> WriteResult:
        """Write the note (or propose to); ``proposer`` names who proposed the write being
        confirmed, credited in the ledger beside the caller."""
        with self.core.attempt(tool, path, caller=caller):
            credit = credited(caller, proposer)
            return self._write(
                path, content, expected_revision, dry_run, caller, tool, confirming, credit
            )

    def _write(
        self,
        path: str,
        content: str,
        expected_revision: str | None,
        dry_run: bool,
        caller: Caller,
        tool: str,
        confirming: bool,
        credit: str,
    ) -> WriteResult:
        rel = self.core.target(path, caller=caller)
        new = encode_content(content)
        if dry_run:
            current = self.core.current(rel)
            pre = self.core.preflight(rel, new, current, expected_revision, caller=caller)
            return WriteResult(
                "dry_run",
                rel,
                revision_of(new),
                current.revision,
                diff=gates.unified_diff(rel, current.raw, new),
                preflight=pre,
            )
        with self.locks.lock(rel):
            current = self.core.current(rel)

            def gate() -> str:
                gates.refuse_violations(
                    rel, gates.validate(rel, new, current, caller, self.core.config)
                )
                return gates.check_revision(rel, current, expected_revision)

            self.core.guarded(tool, rel, lambda: current.revision, gate, caller=caller)
            if caller.write_mode == "propose" and not confirming:
                p = self.core.propose(
                    tool, rel, new, current.raw, expected_revision, {}, caller=caller
                )
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
            self.core.apply(tool, rel, new, current, "overwrite", caller=caller, credit=credit)
        return self.core.stamp(WriteResult("written", rel, revision_of(new), current.revision))

    # -- proposals -------------------------------------------------------------------------------

    def pending(self, proposal_id: str, *, caller: Caller) -> Proposal:
        """A pending proposal; one on a note ``caller`` may not see is answered exactly like
        one that does not exist."""
        if not isinstance(proposal_id, str) or not proposal_id:
            raise ProposalNotFound("no such proposal", proposal_id=proposal_id)
        try:
            p = self.records.proposal(proposal_id)
        except NotFound as exc:
            raise ProposalNotFound(f"no proposal {proposal_id!r}", proposal_id=proposal_id) from exc
        if not self.deps.access.can_see(p.path, caller=caller):
            raise ProposalNotFound(f"no proposal {proposal_id!r}", proposal_id=proposal_id)
        if p.decision is not None:
            raise ProposalNotFound(
                f"proposal {proposal_id!r} was already {p.decision}", proposal_id=proposal_id
            )
        if p.expires_at <= self.records.ledger.clock():
            raise ProposalExpired(
                f"proposal {proposal_id!r} expired at {iso(p.expires_at)}", proposal_id=proposal_id
            )
        return p

    def confirm(self, proposal_id: str, *, caller: Caller) -> Any:
        """Re-run every gate against the file as it is now, then apply the proposal. Under
        the note's lock, the proposal is read again: of two confirms racing (threads, or
        replicas of one shared store) exactly one applies, and the other is told that the
        proposal was already confirmed."""
        gates.require_scope(caller, "confirm")
        p = self.pending(proposal_id, caller=caller)
        self.core.guarded(
            "vault_confirm",
            p.path,
            lambda: p.base_revision,
            lambda: gates.require_may_confirm(caller, p.proposal_id, p.caller),
            caller=caller,
        )
        with self.locks.locks(proposal_paths(p)):
            p = self.pending(proposal_id, caller=caller)
            result = self.confirmers[p.tool](p, caller)
            if not self.records.decide(p.proposal_id, "confirmed", caller.name):
                log.warning("proposal %s was decided twice", p.proposal_id)
        return result

    def _confirm_write(self, p: Proposal, caller: Caller) -> WriteResult:
        return self.write(
            p.path,
            p.content.decode("utf-8"),
            p.expected_revision,
            caller=caller,
            tool="vault_confirm",
            confirming=True,
            proposer=p.caller,
        )

    def _confirm_file_note(self, p: Proposal, caller: Caller) -> Any:
        return self.notes.file_note(
            p.path,
            p.content.decode("utf-8"),
            p.args.get("index_line"),
            p.expected_revision,
            caller=caller,
            confirming=True,
        )

    def _confirm_archive(self, p: Proposal, caller: Caller) -> Any:
        return self.retirement.archive(
            p.path,
            p.args["reason"],
            p.expected_revision or "",
            caller=caller,
            confirming=True,
            proposer=p.caller,
        )

    def _confirm_restore(self, p: Proposal, caller: Caller) -> Any:
        return self.retirement.restore(
            p.args["revision_id"], p.path, caller=caller, confirming=True, proposer=p.caller
        )

    def reject(self, proposal_id: str, *, caller: Caller) -> RejectResult:
        gates.require_scope(caller, "confirm")
        p = self.pending(proposal_id, caller=caller)
        with self.locks.locks(proposal_paths(p)):  # never while a confirm applies it
            return self._reject(self.pending(proposal_id, caller=caller), caller)

    def _reject(self, p: Proposal, caller: Caller) -> RejectResult:
        proposal_id = p.proposal_id
        if not self.records.decide(p.proposal_id, "rejected", caller.name):
            raise ProposalNotFound(
                f"proposal {proposal_id!r} was already decided", proposal_id=proposal_id
            )
        self.records.event(
            "vault_reject", caller.name, p.path, p.base_revision, None, "rejected", p.proposal_id
        )
        return RejectResult(p.proposal_id, "rejected")

    def proposals(self, *, caller: Caller) -> ProposalsResult:
        gates.require_scope(caller, "read")
        seen = self.deps.access.visibility(caller=caller)
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
