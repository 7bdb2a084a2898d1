"""The shared steps of every write: the gates' inputs, the durable intent, the atomic replace,
the ledger events. :class:`WriteCore` is given :class:`~hoard.app.deps.Deps`; the flows that
write (:mod:`~hoard.app.writes.write_path`, :mod:`~hoard.app.writes.file_note`,
:mod:`~hoard.app.writes.retire`) are built on one shared instance.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, Protocol, TypeVar

from hoard.adapters.fs import atomic, failpoints
from hoard.adapters.index.lookups import others_with_stem
from hoard.adapters.ledger import heads, kept
from hoard.adapters.ledger.records import Event, Proposal, Records
from hoard.adapters.vcs.git import Git, GitFailed
from hoard.app.deps import Deps, no_paths
from hoard.app.similar import Similar
from hoard.app.writes.common import index_path_for, links_to
from hoard.core import gates
from hoard.core.errors import Busy, Conflict, Exists, HoardError, InvalidArgument, NotFound
from hoard.core.gates import Current
from hoard.core.links import note_keys
from hoard.core.models import Preflight
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path, stem_of
from hoard.core.policy import Caller

log = logging.getLogger("hoard.writes")

GIT_LOCK = "\x00git"
"""The lock (a path no note can have) that hoard's commits and a sync's history work take,
so a commit never lands between a sync reading the branch and moving it."""
GIT_LOCK_TIMEOUT_S = 120.0

DUPLICATE_HINTS = 5
"""Preflight names at most this many other notes with the same file name, and at most this
many more whose content is nearly the same (semantic search on, see
:meth:`hoard.app.similar.Similar.near_duplicates`)."""


W = TypeVar("W")


class Stamp(Protocol):
    def __call__(self, result: W) -> W: ...


def unstamped(result: W) -> W:
    """The stamp of a vault without a git remote: the result as it is."""
    return result


OUTSIDE_SAVE_KEPT = "outside save a write swapped out for a moment and back"


class WriteCore:
    def __init__(self, deps: Deps, similarity: Similar | None = None) -> None:
        self.deps = deps
        self.similarity = similarity
        self.vault = deps.vault
        self.config = deps.config
        self.records = Records(deps.ledger)
        self.locks = deps.locks
        git = deps.config.git
        self.git = Git(deps.vault.root) if git.commit or git.remote else None
        self.committed: Callable[[], None] = lambda: None
        """Told after each commit hoard makes (sync pushes soon after)."""
        self.stamp: Stamp = unstamped
        """Marks a written result with its sync state (``synced``; see app/sync)."""

    def current(self, rel: str) -> Current:
        try:
            _, raw = self.vault.read_full(rel, self.config.limits.note_max_bytes * 2)
        except NotFound:
            return Current(None)
        return Current(raw)

    def target(self, path: str, scope: str = "write", *, caller: Caller) -> str:
        gates.require_scope(caller, scope)
        if not isinstance(path, str):
            raise InvalidArgument("path must be a string")
        rel = normalize_note_path(path)
        self.deps.access.check_writable(rel, caller=caller)
        self.deps.access.check_visible(rel, caller=caller)
        return rel

    def refused(
        self, tool: str, rel: str | None, before: str | None, exc: HoardError, *, caller: Caller
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
        rel: str | None,
        before: Callable[[], str | None],
        fn: Callable[[], Any],
        *,
        caller: Caller,
    ) -> Any:
        try:
            return fn()
        except HoardError as exc:
            self.refused(tool, rel, before(), exc, caller=caller)
            raise

    def refresh(self, *rels: str, written: bool = False) -> None:
        """Bring the index up to date with ``rels``. ``written``: they are what this write
        just changed, under their locks with its intent recorded, so the index does not look
        in them for saves from outside hoard (the newest event it would read is that
        intent, which says the change is hoard's: one read of the ledger per write saved)."""
        try:
            self.deps.index.refresh_paths(list(rels), notice=not written)
        except Exception as exc:  # the file is written; the watcher or a stat walk catches up
            log.warning("index update after a write failed: %s", exc)
            self.deps.index_missed(exc)

    def preflight(
        self,
        rel: str,
        new: bytes,
        current: Current,
        expected_revision: str | None,
        *,
        caller: Caller,
    ) -> Preflight:
        violations = [v.as_dict() for v in gates.validate(rel, new, current, caller, self.config)]
        try:
            check = gates.check_revision(rel, current, expected_revision)
        except Exists:
            check = "exists"
        except Conflict:
            check = "conflict"
        seen = self.deps.access.visibility(caller=caller)
        duplicates = [
            p
            for p in self.deps.from_index(lambda: self._same_stem(rel), no_paths)
            if seen is None or seen(p)
        ][:DUPLICATE_HINTS]
        if self.similarity is not None:
            near = self.similarity.near_duplicates(rel, new, DUPLICATE_HINTS, caller=caller)
            duplicates += [p for p in near if p not in duplicates]
        obligations: list[str] = []
        idx = index_path_for(rel)
        if (
            not gates.is_private(rel, self.config)
            and stem_of(rel) != "_INDEX"
            and (seen is None or seen(idx))
        ):
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

    def _same_stem(self, rel: str) -> list[str]:
        """Other notes with the same file name, from the index (enough of them that the
        ones a caller may see still fill the hints after the protected ones are dropped)."""
        _, skey = note_keys(rel)
        return others_with_stem(self.deps.index.reader(), skey, rel, limit=200)

    def propose(
        self,
        tool: str,
        rel: str,
        new: bytes,
        before: bytes | None,
        expected_revision: str | None,
        args: dict[str, Any],
        *,
        caller: Caller,
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

    def apply(
        self,
        tool: str,
        rel: str,
        new: bytes,
        current: Current,
        reason: str,
        point: str = "write",
        *,
        caller: Caller,
        commit: bool = True,
        credit: str | None = None,
    ) -> None:
        """Preserve and record the intent (one durable transaction), replace, record the
        outcome and keep the written bytes (one transaction); under the caller's lock.
        ``commit=False``: sync applying a pull, which moves the branch itself. ``credit``:
        the name the ledger records, when it is more than the caller's."""
        after = revision_of(new)
        name = credit or caller.name
        self.check_head(rel, current)
        intent, _ = self.records.begin_change(tool, name, rel, current.raw, after, reason)
        if current.raw is not None:
            failpoints.hit(f"{point}.preserved")
        with self.failure_recorded(tool, rel, current.revision, None, intent, caller=caller):
            atomic.replace(self.vault, rel, new, point, previous=current.raw, keep=self.keeper(rel))
        self.refresh(rel, written=True)
        failpoints.hit(f"{point}.indexed")
        event = kept.record_written(
            self.deps.ledger, tool, name, rel, current.revision, new, intent
        )
        if commit:
            self.commit(tool, [rel], [event], caller=caller)

    def check_head(self, rel: str, current: Current) -> None:
        """``conflict`` carrying the head's revision when ``current`` is a stale view of
        ``rel`` (on a shared store, a revision hoard wrote there before the note's head: this
        replica's view of the folder lags another's write); checked before every change made
        on the strength of what was read."""
        stale, head = heads.stale_head(self.deps.ledger, rel, current.revision)
        if stale:
            raise Conflict(
                f"{rel!r} as this replica reads it is older than its last write through "
                "hoard (the shared folder's view here lags); read it again and retry",
                head,
            )

    def keeper(self, rel: str) -> atomic.Keep:
        """Keeps in the ledger an outside save of ``rel`` that a write swapped out for a moment
        (an editor may read the write's bytes in that moment and save from them later) and
        one that a newer save replaced while the write was swapping back."""

        def keep(raw: bytes) -> bool:
            self.records.preserve(rel, raw, OUTSIDE_SAVE_KEPT, "outside")
            return True

        return keep

    def commit(self, tool: str, paths: list[str], events: list[int], *, caller: Caller) -> None:
        """With ``[git] commit``: one commit of exactly these paths, the caller as author and
        the ledger event ids in the message. A failure is recorded, never raised: the files
        are written whatever git says."""
        if self.git is None:
            return
        ids = ", ".join(str(e) for e in events)
        message = (
            f"{tool}: {', '.join(paths)}\n\nhoard-events: {ids}\nhoard-caller: {caller.name}\n"
        )
        try:
            with self.locks.lock(GIT_LOCK, GIT_LOCK_TIMEOUT_S):
                made = self.git.commit(paths, message, caller.name)
            if made is not None:
                self.committed()
        except (GitFailed, Busy) as exc:
            log.warning("git commit after %s failed: %s", tool, exc)
            self.records.event(
                tool, caller.name, paths[0], None, None, "commit_failed", str(exc)[:1000]
            )

    @contextlib.contextmanager
    def failure_recorded(
        self,
        tool: str,
        rel: str,
        before: str | None,
        after: str | None,
        intent: int | None,
        *,
        caller: Caller,
    ) -> Iterator[None]:
        """A refusal of the file system after the intent is recorded as the intent's
        ``failed`` outcome (and not again by :meth:`attempt`)."""
        try:
            yield
        except HoardError as exc:
            self.records.event(
                tool,
                caller.name,
                rel,
                before,
                after,
                "failed",
                f"{exc.code}: {exc.message}"[:1000],
                intent_id=intent,
            )
            exc.ledgered = True
            raise

    @contextlib.contextmanager
    def attempt(self, tool: str, path: object, *, caller: Caller) -> Iterator[None]:
        """Every attempt that is refused leaves a ledger event, whatever gate refused it
        (scope, grant, path, lock, contract, revision)."""
        try:
            yield
        except HoardError as exc:
            if not exc.ledgered:
                rel = path if isinstance(path, str) else None
                self.refused(tool, rel, None, exc, caller=caller)
            raise

    def reconcile_intents(self) -> int:
        """Record the outcome of changes a crash interrupted, from the files as they are
        (each under its note's lock: another replica may be writing the note)."""
        done = 0
        for e in self.records.open_intents():
            if e.path is not None:
                with self.locks.lock(e.path):
                    self._reconcile(e)
                done += 1
        return done

    def _reconcile(self, e: Event) -> None:
        if e.path is None:
            return
        now = self.current(e.path).revision
        if now == e.after:
            decision = "written" if e.after is not None else e.reason or "archived"
            self._keep_current(e.path, now)
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
            intent_id=e.event_id,
        )

    def _keep_current(self, rel: str, sha: str | None) -> None:
        """Keep the bytes at ``rel`` when they are revision ``sha`` (a write a crash
        interrupted after it landed)."""
        raw = self.current(rel).raw
        if sha is not None and raw is not None and revision_of(raw) == sha:
            kept.keep_bytes(self.deps.ledger, raw)


P = ParamSpec("P")
R = TypeVar("R")


def attempted(tool: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run a write flow's method (on an object with a ``core``: :class:`WriteCore`) inside
    :meth:`WriteCore.attempt`, so a refusal by any gate leaves a ledger event. The method's
    ``caller`` argument (required, keyword-only) and its ``path`` argument name the attempt."""

    def wrap(method: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = signature.bind(*args, **kwargs)
            core: WriteCore = bound.arguments["self"].core
            caller = bound.arguments["caller"]
            with core.attempt(tool, bound.arguments.get("path"), caller=caller):
                return method(*bound.args, **bound.kwargs)

        return run

    return wrap
