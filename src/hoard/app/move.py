"""``vault_move``: rename or move a note, rewrite every link to it, update the _INDEX.md of
both folders, as one journaled transaction (the same journal and recovery as
``vault_file_note``: each file's prior bytes are preserved, ``vault_recover`` or startup
completes an interrupted move, and never overwrites a file that changed meanwhile).

The plan (which files change, and how) is made under the per-path locks of every file it
touches, so a write through hoard to a linking note waits for the move (or the move waits
for it, then re-plans from the note as it is). Order of the transaction: the note at its new
path, the linking notes, the _INDEX.md files, and last the removal of the old path, so a
crash leaves the note findable at one path or both, never at none.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import Any

from hoard.adapters.fs import failpoints
from hoard.adapters.index.graph import backlinks, resolve_links
from hoard.adapters.index.lookups import paths_with_stem
from hoard.adapters.ledger.records import Proposal
from hoard.app.writes.common import add_index_line, index_path_for, links_to
from hoard.app.writes.write_path import WritePath
from hoard.core import gates, relink
from hoard.core.errors import Busy, Exists, InvalidArgument, IoError, NotFound, PrivateNote
from hoard.core.gates import Current
from hoard.core.links import Resolution, extract_links, link_key, note_keys
from hoard.core.models import MovedFile, MoveResult
from hoard.core.note import revision_of
from hoard.core.paths import folder_of, stem_of
from hoard.core.policy import Caller
from hoard.core.reach import counts_as_hidden
from hoard.core.times import iso

TOOL = "vault_move"
ROLES = {"move-note": "note", "move-link": "link", "move-index": "index", "move-old": "old"}


@dataclass(slots=True)
class Plan:
    rel: str
    dst: str
    current: Current
    before: dict[str, bytes | None] = field(default_factory=dict)
    after: dict[str, bytes | None] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    private: list[str] = field(default_factory=list)
    hidden: int = 0

    def files(self) -> list[dict[str, Any]]:
        order = ["move-note", "move-link", "move-index", "move-old"]
        paths = sorted(self.roles, key=lambda p: (order.index(self.roles[p]), p))
        return [
            {
                "path": p,
                "role": self.roles[p],
                "base": _rev(self.before[p]),
                "new": _rev(self.after[p]),
            }
            for p in paths
            if self.before[p] != self.after[p]
        ]

    def diff(self) -> str:
        out: list[str] = []
        for f in self.files():
            p = f["path"]
            a = self.rel if p == self.dst else p
            old = (self.before[p] or b"") if p != self.dst else (self.current.raw or b"")
            if p == self.dst and old == self.after[p]:
                out.append(f"--- a/{a}\n+++ b/{p}\n")  # moved as it is: no hunks
                continue
            out += difflib.unified_diff(
                old.decode("utf-8", "replace").splitlines(keepends=True),
                (self.after[p] or b"").decode("utf-8", "replace").splitlines(keepends=True),
                fromfile="/dev/null" if f["base"] is None and p != self.dst else f"a/{a}",
                tofile="/dev/null" if f["new"] is None else f"b/{p}",
            )
        return "".join(out)


@dataclass(frozen=True, slots=True)
class MoveAsk:
    """What a caller asked to move, checked, as it travels through the lock to the move."""

    rel: str
    dst: str
    expected: str
    update_links: bool
    dry_run: bool
    caller: Caller
    confirming: bool


def _rev(raw: bytes | None) -> str | None:
    return None if raw is None else revision_of(raw)


class Moves:
    def __init__(self, writes: WritePath) -> None:
        self.writes = writes
        self.core = writes.core
        writes.confirmers[TOOL] = self._confirm

    def move(
        self,
        path: str,
        new_path: str,
        expected_revision: str,
        update_links: bool = True,
        dry_run: bool = False,
        *,
        caller: Caller,
        confirming: bool = False,
    ) -> MoveResult:
        with self.core.attempt(TOOL, path, caller=caller):
            rel = self.core.target(path, caller=caller)
            dst = self.core.target(new_path, caller=caller)
            if not isinstance(expected_revision, str) or not expected_revision:
                raise InvalidArgument("expected_revision is required: the revision you move")
            if rel == dst:
                raise InvalidArgument("the note is already at that path")
            for p in (rel, dst):
                if gates.private_locked(p, caller, self.core.config):
                    raise PrivateNote(f"{p!r} is private: notes there are never moved", path=p)
            ask = MoveAsk(
                rel=rel,
                dst=dst,
                expected=expected_revision,
                update_links=update_links,
                dry_run=dry_run,
                caller=caller,
                confirming=confirming,
            )
            return self._locked(ask)

    def _locked(self, ask: MoveAsk) -> MoveResult:
        rel, dst, update_links, caller = ask.rel, ask.dst, ask.update_links, ask.caller
        paths = set(self._plan(rel, dst, update_links, caller).roles)
        for _ in range(3):
            with self.core.locks.locks(paths):
                plan = self._plan(rel, dst, update_links, caller)
                if not set(plan.roles) <= paths:
                    paths |= set(plan.roles)  # a new link appeared meanwhile: lock it too
                    continue
                failpoints.hit("move.locked")
                if not ask.dry_run:
                    current = plan.current
                    self.core.guarded(
                        TOOL,
                        rel,
                        lambda: current.revision,  # noqa: B023 (called before the loop moves on)
                        lambda: self._gate(plan, ask.expected),  # noqa: B023
                        caller=caller,
                    )
                return self._apply(plan, ask)
        raise Busy("the links to this note keep changing; try the move again", path=rel)

    def _gate(self, plan: Plan, expected: str) -> None:
        """The note is the revision the caller read, and no file the move changes is a
        stale view of a newer revision another replica wrote (the move would carry, rewrite
        or remove the older bytes)."""
        gates.check_revision(plan.rel, plan.current, expected)
        for f in plan.files():
            if f["base"] is not None:
                self.core.check_head(f["path"], Current(plan.before[f["path"]]))

    def _plan(self, rel: str, dst: str, update_links: bool, caller: Caller) -> Plan:
        current = self.core.current(rel)
        if current.raw is None:
            raise NotFound(f"no note at {rel!r}", path=rel)
        there = self.core.current(dst)
        if there.raw is not None:
            raise Exists(f"{dst!r} exists; a move never replaces a note", there.revision)
        plan = Plan(rel, dst, current)
        plan.before.update({rel: current.raw, dst: None})
        plan.after.update({rel: None})
        plan.roles.update({rel: "move-old", dst: "move-note"})
        self.core.deps.ensure_fresh()
        conn = self.core.deps.index.reader()
        dst_skey = note_keys(dst)[1]
        keep_stem = not any(p != rel for p in paths_with_stem(conn, dst_skey))

        def rewritten(src: str, raw: bytes, out_folder: str) -> bytes:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw
            hits = resolve_links(conn, [(link_key(ln), src) for ln in _targets(text)])
            rebase = src == rel and folder_of(rel) != folder_of(dst)
            return relink.rewrite(
                text,
                src,
                lambda t: _names_moved(hits.get((link_key(t), src)), rel),
                lambda t: relink.wikilink_target(t, dst, keep_stem),
                lambda p: dst if p == rel else (p if rebase else None),
                out_folder,
            ).encode("utf-8")

        plan.after[dst] = (
            rewritten(rel, current.raw, folder_of(dst)) if update_links else (current.raw)
        )
        if update_links:
            self._linkers(plan, conn, caller, rewritten)
        self._indexes(plan, caller)
        return plan

    def _linkers(self, plan: Plan, conn: Any, caller: Caller, rewritten: Any) -> None:
        access = self.core.deps.access
        seen = access.visibility(caller=caller)
        for src in backlinks(conn, plan.rel):
            if src == plan.rel:
                continue
            if seen is not None and not seen(src):
                plan.hidden += counts_as_hidden(seen, src)
                continue
            if gates.is_private(src, self.core.config) or not access.may_write(src, caller=caller):
                plan.private.append(src)
                continue
            raw = self.core.current(src).raw
            if raw is None:
                continue
            plan.before[src], plan.roles[src] = raw, "move-link"
            plan.after[src] = rewritten(src, raw, folder_of(src))

    def _indexes(self, plan: Plan, caller: Caller) -> None:
        """The old folder's _INDEX.md loses the note's line; the new folder's gains it."""
        rel, dst = plan.rel, plan.dst
        old_idx, new_idx = index_path_for(rel), index_path_for(dst)
        if old_idx == new_idx or "_INDEX" in (stem_of(rel), stem_of(dst)):
            return
        line = f"- [[{stem_of(dst)}]]"
        if not all(self.core.deps.access.may_write(i, caller=caller) for i in (old_idx, new_idx)):
            return  # an _INDEX.md outside the caller's folders stays as it is
        for idx in (old_idx, new_idx):
            if idx not in plan.before:
                plan.before[idx] = self.core.current(idx).raw
                plan.after[idx] = plan.before[idx]
        old_raw = plan.after[old_idx]
        if old_raw is not None:
            kept, moved = _drop_lines(old_raw, dst)
            if moved is not None:
                plan.after[old_idx], line = kept, moved
                plan.roles[old_idx] = "move-index"
        new_raw = plan.after[new_idx]
        if not gates.is_private(new_idx, self.core.config) and (
            new_raw is None or not links_to(new_raw, dst)
        ):
            plan.after[new_idx] = add_index_line(new_raw, dst, line, folder_of(dst) or "Vault")
            plan.roles[new_idx] = "move-index"
        for idx in (old_idx, new_idx):
            if idx not in plan.roles:
                del plan.before[idx], plan.after[idx]

    def _apply(self, plan: Plan, ask: MoveAsk) -> MoveResult:
        caller = ask.caller
        files = plan.files()
        result = MoveResult(
            "dry_run",
            plan.rel,
            plan.dst,
            None,
            _rev(plan.after[plan.dst]),
            plan.current.revision,
            [MovedFile(f["path"], ROLES[f["role"]], f["base"], f["new"]) for f in files],
            plan.private,
            plan.hidden,
        )
        if ask.dry_run:
            return replace(result, diff=plan.diff())
        if caller.write_mode == "propose" and not ask.confirming:
            p = self.core.propose(
                TOOL,
                plan.rel,
                plan.after[plan.dst] or b"",
                plan.current.raw,
                ask.expected,
                {"new_path": plan.dst, "update_links": ask.update_links},
                caller=caller,
            )
            return replace(
                result,
                status="proposed",
                proposal_id=p.proposal_id,
                expires_at=iso(p.expires_at),
                diff=plan.diff(),
            )
        blobs = {p: b for p, b in plan.after.items() if b is not None}
        txn = self.core.records.begin_transaction("move", {"files": files}, blobs, caller.name)
        failpoints.hit("move.intent")
        state, detail = self.writes.notes.roll_forward(
            txn, files, blobs, tool=TOOL, caller=caller, checked=True
        )
        if state != "done":
            raise IoError(f"transaction {txn} stopped: {detail}", transaction_id=txn)
        return self.writes.core.stamp(replace(result, status="moved", transaction_id=txn))

    def _confirm(self, p: Proposal, caller: Caller) -> MoveResult:
        return self.move(
            p.path,
            p.args["new_path"],
            p.expected_revision or "",
            bool(p.args.get("update_links", True)),
            caller=caller,
            confirming=True,
        )


def _names_moved(hit: Resolution | None, rel: str) -> bool:
    """Whether a link to ``rel`` must be rewritten when the note moves: one that finds it by
    path or file name. A link by alias still finds it (the alias moves with the note)."""
    return hit is not None and hit.path == rel and hit.by in ("path", "name")


def _targets(text: str) -> list[str]:
    return [ln.target for ln in extract_links(text)]


def _drop_lines(raw: bytes, dst: str) -> tuple[bytes, str | None]:
    """The index without the lines that (now) link the moved note, and the first of them."""
    kept: list[bytes] = []
    moved: str | None = None
    for line in raw.splitlines(keepends=True):
        if links_to(line, dst) and line.strip().startswith((b"-", b"*", b"[[")):
            if moved is None:
                moved = line.decode("utf-8", "replace").rstrip("\r\n")
            continue
        kept.append(line)
    return b"".join(kept), moved
