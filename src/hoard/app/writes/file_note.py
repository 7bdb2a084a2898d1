"""vault_file_note: a note and its folder's _INDEX.md line as one journaled transaction,
and the recovery that completes (or reports) an interrupted one."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from hoard.adapters.fs import atomic, failpoints
from hoard.adapters.ledger import heads, kept
from hoard.app.writes.common import add_index_line, encode_content, index_path_for, links_to
from hoard.app.writes.core import WriteCore, attempted
from hoard.core import gates
from hoard.core.errors import (
    HoardError,
    InvalidArgument,
    IoError,
)
from hoard.core.gates import Current
from hoard.core.models import (
    FileNoteResult,
    Preflight,
    RecoverItem,
    RecoverResult,
)
from hoard.core.note import revision_of
from hoard.core.paths import folder_of, stem_of
from hoard.core.policy import Caller
from hoard.core.times import iso

log = logging.getLogger("hoard.writes")

TOOLS = {"file_note": "vault_file_note", "move": "vault_move"}
"""The tool each kind of journaled transaction belongs to (its ledger events name it)."""


@dataclass(frozen=True, slots=True)
class Filing:
    """One vault_file_note: the note and its folder's index, now and after."""

    rel: str
    idx: str
    new: bytes
    new_idx: bytes | None
    note: Current
    index: Current

    def result(
        self,
        status: str,
        txn: str | None = None,
        *,
        preflight: Preflight | None = None,
        diff: str | None = None,
    ) -> FileNoteResult:
        index_revision = revision_of(self.new_idx) if self.new_idx else self.index.revision
        return FileNoteResult(
            status,
            self.rel,
            txn,
            revision_of(self.new),
            self.idx,
            index_revision,
            self.new_idx is not None,
            preflight=preflight,
            diff=diff,
        )


class FileNotes:
    def __init__(self, core: WriteCore) -> None:
        self.core = core

    # -- vault_file_note ------------------------------------------------------------------------

    @attempted("vault_file_note")
    def file_note(
        self,
        path: str,
        content: str,
        index_line: str | None = None,
        expected_revision: str | None = None,
        dry_run: bool = False,
        *,
        caller: Caller,
        confirming: bool = False,
    ) -> FileNoteResult:
        rel = self.core.target(path, caller=caller)
        idx = index_path_for(rel)
        if rel == idx:
            raise InvalidArgument("file the note itself, not the folder's _INDEX.md")
        self.core.deps.access.check_writable(idx, caller=caller)
        self.core.deps.access.check_visible(idx, caller=caller)
        line = index_line if index_line is not None else f"- [[{stem_of(rel)}]]"
        if "\n" in line or "\r" in line or not line.strip():
            raise InvalidArgument("index_line must be one non-empty line")
        new = encode_content(content)
        with self.core.locks.locks([rel, idx]):
            filing = self._filing(rel, idx, new, line)
            if dry_run:
                return self._dry_run(filing, caller, expected_revision)
            self.core.guarded(
                "vault_file_note",
                rel,
                lambda: filing.note.revision,
                lambda: self._gate(filing, caller, expected_revision),
                caller=caller,
            )
            if caller.write_mode == "propose" and not confirming:
                return self._propose(filing, caller, expected_revision, index_line)
            txn, state, detail = self._commit(filing, caller)
        if state != "done":
            raise IoError(f"transaction {txn} stopped: {detail}", transaction_id=txn)
        return self.core.stamp(filing.result("written", txn))

    def _filing(self, rel: str, idx: str, new: bytes, line: str) -> Filing:
        """The note and its folder's index as they are, and as the filing would leave them
        (no new index bytes when the index links the note already)."""
        note, index = self.core.current(rel), self.core.current(idx)
        new_idx = (
            None
            if index.raw is not None and links_to(index.raw, rel)
            else add_index_line(index.raw, rel, line, folder_of(rel) or "Vault")
        )
        return Filing(rel=rel, idx=idx, new=new, new_idx=new_idx, note=note, index=index)

    def _dry_run(self, f: Filing, caller: Caller, expected_revision: str | None) -> FileNoteResult:
        pre = self.core.preflight(f.rel, f.new, f.note, expected_revision, caller=caller)
        if f.new_idx is not None:
            index_violations = [
                {**v.as_dict(), "field": f"{f.idx}: {v.field}"}
                for v in gates.validate(f.idx, f.new_idx, f.index, caller, self.core.config)
            ]
            pre = replace(pre, violations=pre.violations + index_violations)
        return f.result("dry_run", preflight=pre, diff=gates.unified_diff(f.rel, f.note.raw, f.new))

    def _gate(self, f: Filing, caller: Caller, expected_revision: str | None) -> None:
        config = self.core.config
        gates.refuse_violations(f.rel, gates.validate(f.rel, f.new, f.note, caller, config))
        gates.check_revision(f.rel, f.note, expected_revision)
        self.core.check_head(f.rel, f.note)
        if f.new_idx is not None:
            gates.refuse_violations(
                f.idx, gates.validate(f.idx, f.new_idx, f.index, caller, config)
            )
            self.core.check_head(f.idx, f.index)

    def _propose(
        self, f: Filing, caller: Caller, expected_revision: str | None, index_line: str | None
    ) -> FileNoteResult:
        p = self.core.propose(
            "vault_file_note",
            f.rel,
            f.new,
            f.note.raw,
            expected_revision,
            {"index_line": index_line},
            caller=caller,
        )
        return FileNoteResult(
            "proposed",
            f.rel,
            None,
            revision_of(f.new),
            f.idx,
            f.index.revision,
            f.new_idx is not None,
            p.proposal_id,
            iso(p.expires_at),
            p.diff,
        )

    def _commit(self, f: Filing, caller: Caller) -> tuple[str, str, str | None]:
        """Journal the transaction (intent and new bytes, durably), then roll it forward."""
        files = [
            {"path": f.rel, "base": f.note.revision, "new": revision_of(f.new), "role": "note"}
        ]
        blobs = {f.rel: f.new}
        if f.new_idx is not None:
            idx_rev = revision_of(f.new_idx)
            files.append({"path": f.idx, "base": f.index.revision, "new": idx_rev, "role": "index"})
            blobs[f.idx] = f.new_idx
        txn = self.core.records.begin_transaction("file_note", {"files": files}, blobs, caller.name)
        failpoints.hit("txn.intent")
        state, detail = self.roll_forward(txn, files, blobs, caller=caller, checked=True)
        return txn, state, detail

    def roll_forward(
        self,
        txn: str,
        files: list[dict[str, Any]],
        blobs: dict[str, bytes],
        last: tuple[str, str | None] = ("intent", None),
        tool: str = "vault_file_note",
        *,
        caller: Caller,
        checked: bool = False,
    ) -> tuple[str, str | None]:
        """Apply a journaled transaction, file by file, under locks the caller holds.
        Idempotent: a file already at its new revision is left alone. Never rebases: a file
        at neither its base nor its new revision stops the transaction (``stuck``), and so
        does one whose base is a stale view of a newer revision another replica wrote since
        (``checked``: the caller checked every file's head under the locks it holds). A file
        whose new revision is ``None`` is removed (its bytes preserved first)."""
        events: list[int] = []
        try:
            for f in files:
                current = self.core.current(f["path"])
                if current.revision == f["new"]:
                    continue
                stop = self._stop(f, current, checked)
                if stop is not None:
                    return self._stuck(txn, f, current, caller, tool, last, stop)
                events.append(self._apply_one(txn, f, current, blobs, caller, tool))
        except HoardError as exc:
            self.core.records.finish_transaction(txn, "failed", f"{exc.code}: {exc.message}")
            exc.details["transaction_id"] = txn
            exc.message += f" (transaction {txn}: vault_recover completes it)"
            raise
        failpoints.hit("txn.done")
        self.core.records.finish_transaction(txn, "done")
        if events:
            self.core.commit(tool, [f["path"] for f in files], events, caller=caller)
        return "done", None

    def _stop(self, f: dict[str, Any], current: Current, checked: bool) -> str | None:
        """Why the file may not be changed (``None``: it may): it is at neither its base nor
        its new revision, or (unless ``checked``) this replica's view of it lags."""
        rel = f["path"]
        if current.revision != f["base"]:
            return (
                f"{rel} moved since the intent (expected {f['base']}, found "
                f"{current.revision}); not overwritten"
            )
        if checked:
            return None
        stale, head = heads.stale_head(self.core.deps.ledger, rel, current.revision)
        if not stale:
            return None
        return (
            f"{rel} as this replica reads it ({current.revision}) is older than its last "
            f"write through hoard ({head}); not overwritten"
        )

    def _stuck(
        self,
        txn: str,
        f: dict[str, Any],
        current: Current,
        caller: Caller,
        tool: str,
        last: tuple[str, str | None],
        detail: str,
    ) -> tuple[str, str | None]:
        """A file that may not be changed (``detail`` says why): the transaction stops,
        once."""
        rel = f["path"]
        if last == ("stuck", detail):
            return "stuck", detail  # already reported; nothing new to record
        self.core.records.finish_transaction(txn, "stuck", detail)
        self.core.records.event(
            tool, caller.name, rel, current.revision, None, "stuck", f"{txn}: {detail}"
        )
        return "stuck", detail

    def _apply_one(
        self,
        txn: str,
        f: dict[str, Any],
        current: Current,
        blobs: dict[str, bytes],
        caller: Caller,
        tool: str,
    ) -> int:
        """Preserve the file's bytes, then replace (or remove) it; returns the event id."""
        rel, role = f["path"], f["role"]
        if current.raw is not None:
            self.core.records.preserve(
                rel, current.raw, f"overwrite (transaction {txn})", caller.name
            )
        failpoints.hit(f"txn.{role}.preserved")
        if f["new"] is None:
            atomic.unlink(self.core.vault, rel)
            failpoints.hit(f"txn.{role}.unlinked")
        else:
            atomic.replace(
                self.core.vault, rel, blobs[rel], f"txn.{role}", current.raw, self.core.keeper(rel)
            )
        self.core.refresh(rel)
        if f["new"] is None:
            return self.core.records.event(
                tool, caller.name, rel, current.revision, None, "written", txn
            )
        return kept.record_written(
            self.core.deps.ledger, tool, caller.name, rel, current.revision, blobs[rel], None, txn
        )

    def recover(self, transaction_id: str | None = None, *, caller: Caller) -> RecoverResult:
        """Complete (or report) journaled transactions: one, or every unfinished one of this
        replica (and of hoard before replicas), each read again under its files' locks (a
        transaction under way finishes first)."""
        gates.require_scope(caller, "write")
        ids = (
            [transaction_id]
            if transaction_id
            else self.core.records.unfinished_transactions(include_stuck=True, mine=True)
        )
        out: list[RecoverItem] = []
        for txn_id in ids:
            files = self.core.records.transaction(txn_id)[0].intent["files"]
            with self.core.locks.locks([f["path"] for f in files]):
                txn, blobs = self.core.records.transaction(txn_id)
                if txn.state == "done":
                    out.append(RecoverItem(txn_id, "done", None))
                    continue
                try:
                    state, detail = self.roll_forward(
                        txn_id,
                        files,
                        blobs,
                        (txn.state, txn.detail),
                        TOOLS.get(txn.kind, "vault_file_note"),
                        caller=caller,
                    )
                except HoardError as exc:
                    state, detail = "failed", f"{exc.code}: {exc.message}"
            out.append(RecoverItem(txn_id, state, detail))
        return RecoverResult(out)
