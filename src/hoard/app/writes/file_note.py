"""vault_file_note: a note and its folder's _INDEX.md line as one journaled transaction,
and the recovery that completes (or reports) an interrupted one."""

from __future__ import annotations

import logging
from typing import Any

from hoard.adapters.fs import atomic, failpoints
from hoard.app.writes.common import add_index_line, encode_content, index_path_for, iso, links_to
from hoard.app.writes.core import WriteCore
from hoard.core import gates
from hoard.core.errors import (
    HoardError,
    InvalidArgument,
    IoError,
)
from hoard.core.models import (
    FileNoteResult,
    RecoverItem,
    RecoverResult,
)
from hoard.core.note import revision_of
from hoard.core.paths import folder_of, stem_of
from hoard.core.policy import Caller

log = logging.getLogger("hoard.writes")


class FileNotes:
    def __init__(self, core: WriteCore) -> None:
        self.core = core

    # -- vault_file_note ------------------------------------------------------------------------

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
        caller = caller or self.core.deps.owner
        rel = self.core.target(path, caller)
        idx = index_path_for(rel)
        if rel == idx:
            raise InvalidArgument("file the note itself, not the folder's _INDEX.md")
        line = index_line if index_line is not None else f"- [[{stem_of(rel)}]]"
        if "\n" in line or "\r" in line or not line.strip():
            raise InvalidArgument("index_line must be one non-empty line")
        new = encode_content(content)
        with atomic.locks(self.core.lock_dir, [rel, idx]):
            cur_note, cur_idx = self.core.current(rel), self.core.current(idx)
            new_idx = (
                None
                if cur_idx.raw is not None and links_to(cur_idx.raw, rel)
                else add_index_line(cur_idx.raw, rel, line, folder_of(rel) or "Vault")
            )
            if dry_run:
                pre = self.core.preflight(rel, new, cur_note, caller, expected_revision)
                if new_idx is not None:
                    pre.violations += [
                        {**v.as_dict(), "field": f"{idx}: {v.field}"}
                        for v in gates.validate(idx, new_idx, cur_idx, caller, self.core.config)
                    ]
                return FileNoteResult(
                    "dry_run",
                    rel,
                    None,
                    revision_of(new),
                    idx,
                    revision_of(new_idx) if new_idx else cur_idx.revision,
                    new_idx is not None,
                    preflight=pre,
                    diff=gates.unified_diff(rel, cur_note.raw, new),
                )

            def gate() -> None:
                gates.refuse_violations(
                    rel, gates.validate(rel, new, cur_note, caller, self.core.config)
                )
                gates.check_revision(rel, cur_note, expected_revision)
                if new_idx is not None:
                    gates.refuse_violations(
                        idx, gates.validate(idx, new_idx, cur_idx, caller, self.core.config)
                    )

            self.core.guarded("vault_file_note", caller, rel, lambda: cur_note.revision, gate)
            if caller.write_mode == "propose" and not confirming:
                p = self.core.propose(
                    "vault_file_note",
                    rel,
                    new,
                    cur_note.raw,
                    expected_revision,
                    caller,
                    {"index_line": index_line},
                )
                return FileNoteResult(
                    "proposed",
                    rel,
                    None,
                    revision_of(new),
                    idx,
                    cur_idx.revision,
                    new_idx is not None,
                    p.proposal_id,
                    iso(p.expires_at),
                    p.diff,
                )
            files = [
                {"path": rel, "base": cur_note.revision, "new": revision_of(new), "role": "note"}
            ]
            blobs = {rel: new}
            if new_idx is not None:
                files.append(
                    {
                        "path": idx,
                        "base": cur_idx.revision,
                        "new": revision_of(new_idx),
                        "role": "index",
                    }
                )
                blobs[idx] = new_idx
            txn = self.core.records.begin_transaction(
                "file_note", {"files": files}, blobs, caller.name
            )
            failpoints.hit("txn.intent")
            state, detail = self.roll_forward(txn, files, blobs, caller)
        if state != "done":
            raise IoError(f"transaction {txn} stopped: {detail}", transaction_id=txn)
        return FileNoteResult(
            "written",
            rel,
            txn,
            revision_of(new),
            idx,
            revision_of(new_idx) if new_idx else cur_idx.revision,
            new_idx is not None,
        )

    def roll_forward(
        self,
        txn: str,
        files: list[dict[str, Any]],
        blobs: dict[str, bytes],
        caller: Caller,
        last: tuple[str, str | None] = ("intent", None),
    ) -> tuple[str, str | None]:
        """Apply a journaled transaction, file by file, under locks the caller holds.
        Idempotent: a file already at its new revision is left alone. Never rebases: a file
        at neither its base nor its new revision stops the transaction (``stuck``)."""
        try:
            for f in files:
                rel, role = f["path"], f["role"]
                current = self.core.current(rel)
                if current.revision == f["new"]:
                    continue
                if current.revision != f["base"]:
                    detail = (
                        f"{rel} moved since the intent (expected {f['base']}, found "
                        f"{current.revision}); not overwritten"
                    )
                    if last == ("stuck", detail):
                        return "stuck", detail  # already reported; nothing new to record
                    self.core.records.finish_transaction(txn, "stuck", detail)
                    self.core.records.event(
                        "vault_file_note",
                        caller.name,
                        rel,
                        current.revision,
                        None,
                        "stuck",
                        f"{txn}: {detail}",
                    )
                    return "stuck", detail
                if current.raw is not None:
                    self.core.records.preserve(
                        rel, current.raw, f"overwrite (transaction {txn})", caller.name
                    )
                failpoints.hit(f"txn.{role}.preserved")
                atomic.replace(self.core.vault, rel, blobs[rel], f"txn.{role}")
                self.core.refresh(rel)
                self.core.records.event(
                    "vault_file_note", caller.name, rel, current.revision, f["new"], "written", txn
                )
        except HoardError as exc:
            self.core.records.finish_transaction(txn, "failed", f"{exc.code}: {exc.message}")
            exc.details["transaction_id"] = txn
            exc.message += f" (transaction {txn}: vault_recover completes it)"
            raise
        failpoints.hit("txn.done")
        self.core.records.finish_transaction(txn, "done")
        return "done", None

    def recover(
        self, transaction_id: str | None = None, caller: Caller | None = None
    ) -> RecoverResult:
        """Complete (or report) journaled transactions: one, or every unfinished one."""
        caller = caller or self.core.deps.owner
        gates.require_scope(caller, "write")
        ids = (
            [transaction_id]
            if transaction_id
            else self.core.records.unfinished_transactions(include_stuck=True)
        )
        out: list[RecoverItem] = []
        for txn_id in ids:
            txn, blobs = self.core.records.transaction(txn_id)
            if txn.state == "done":
                out.append(RecoverItem(txn_id, "done", None))
                continue
            files = txn.intent["files"]
            with atomic.locks(self.core.lock_dir, [f["path"] for f in files]):
                try:
                    state, detail = self.roll_forward(
                        txn_id, files, blobs, caller, (txn.state, txn.detail)
                    )
                except HoardError as exc:
                    state, detail = "failed", f"{exc.code}: {exc.message}"
            out.append(RecoverItem(txn_id, state, detail))
        return RecoverResult(out)
