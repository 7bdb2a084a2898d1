"""vault_recent: what changed in the vault, newest first, from two witnesses.

- The ledger's change events: every write, edit, move, archive and restore hoard made, with
  the caller that made it (a pull from a git remote is credited to ``git:<remote>``).
- The index: a note whose file changed on disk (its row's mtime) to a revision that no
  change of hoard's left there was changed outside hoard (another editor, a script); it is
  credited to ``outside``. A note removed outside hoard leaves no row, so it is not listed.

The cursor is opaque to callers. It carries the floor (the newest event id and file time a
finished walk has seen), the ceiling of the page being walked (the time of the oldest change
shown), and the top to become the next floor: a caller that passes each answer's cursor back
pages down through everything newer than the floor, then is told only what changed after.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
from dataclasses import dataclass, replace

from hoard.adapters.index.facets import titled_changes_between, titles_of
from hoard.adapters.ledger.changes import (
    last_event_id,
    note_changes,
    preserved_bytes,
    revisions_written,
)
from hoard.adapters.ledger.records import Event
from hoard.app.access import Visible
from hoard.app.deps import Deps
from hoard.core.agent_results import ChangeKind, RecentChange, RecentResult
from hoard.core.change_summary import summarize
from hoard.core.errors import HoardError, InvalidArgument
from hoard.core.note import revision_of
from hoard.core.paths import normalize_rel_path
from hoard.core.policy import Caller
from hoard.core.times import iso, parse_instant

MAX_LIMIT = 200
SUMMARY_READ_BYTES = 1 << 20
"""Notes larger than this are summarised by size only (no diff)."""
SUMMARY_CACHE_SIZE = 4096
"""Summaries kept in memory. A summary of two revisions never changes (a revision names its
bytes), so a caller paging through the same changes again does not diff them again."""

OUTSIDE = "outside"


@dataclass(frozen=True, slots=True)
class Cursor:
    floor_event: int = 0
    floor_ns: int = 0
    ceiling: float | None = None
    top_event: int = 0
    top_ns: int = 0

    def encode(self) -> str:
        data = [self.floor_event, self.floor_ns, self.ceiling, self.top_event, self.top_ns]
        raw = json.dumps(data, separators=(",", ":")).encode()
        return "r1." + base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        bad = InvalidArgument("cursor is not one that vault_recent returned", cursor=text[:80])
        if not isinstance(text, str) or not text.startswith("r1."):
            raise bad
        body = text[3:]
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            fe, fns, ceil, te, tns = data
            cur = cls(
                floor_event=int(fe),
                floor_ns=int(fns),
                ceiling=None if ceil is None else float(ceil),
                top_event=int(te),
                top_ns=int(tns),
            )
        except (ValueError, TypeError, binascii.Error) as exc:
            raise bad from exc
        return cur


@dataclass(frozen=True, slots=True)
class _Item:
    at: float
    path: str
    kind: ChangeKind
    who: str
    revision: str | None
    before: str | None
    note: str
    title: str | None = None
    """The indexed title, when the row it came from carried it."""


def _kind(e: Event) -> ChangeKind:
    if e.tool == "vault_restore" or e.decision == "restored":
        return "restored"
    if e.decision in ("archived", "superseded", "retracted"):
        return "archived"
    # A move's events: the note arriving and leaving are moves; the notes whose links to it
    # were rewritten keep a before and an after, and are modified.
    if e.tool == "vault_move" and (e.before is None or e.after is None):
        return "moved"
    if e.before is None:
        return "created"
    return "modified" if e.after is not None else "removed"


def _event_note(e: Event, kind: ChangeKind) -> str:
    if kind == "archived":
        return f"archived ({e.decision})"
    if kind == "restored":
        return "restored from the ledger"
    if kind == "moved":
        return "moved here" if e.after is not None else "moved away"
    return ""


def _no_rows() -> list[tuple[str, int, str, int, str]]:
    return []


def _no_titles() -> dict[str, str]:
    return {}


class RecentChanges:
    """The changes to notes that a caller may see, newest first, paged by cursor."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self._summaries: dict[tuple[str, str, str | None, str | None], str] = {}

    def recent(
        self,
        *,
        caller: Caller,
        since: str | None = None,
        cursor: str | None = None,
        folder: str | None = None,
        limit: int = 50,
    ) -> RecentResult:
        self.deps.access.require("read", caller=caller)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidArgument(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        prefix = normalize_rel_path(folder).rstrip("/") + "/" if folder else None
        cur = Cursor.decode(cursor) if cursor else Cursor()
        since_at = parse_instant(since, "since") if since else None
        if cur.ceiling is None:  # a new walk: its top is everything up to now
            self.deps.ensure_fresh()
            cur = replace(cur, top_event=last_event_id(self.deps.ledger), top_ns=cur.floor_ns)
        seen = self.deps.access.visibility(caller=caller)
        events = self._events(cur, since_at, prefix, limit, seen)
        outside, top_ns = self._outside(cur, since_at, prefix, limit, seen)
        items = sorted(events + outside, key=lambda i: i.at, reverse=True)
        more = len(items) > limit
        page = items[:limit]
        cur = replace(cur, top_ns=max(cur.top_ns, top_ns))
        latest = Cursor(
            floor_event=cur.top_event,
            floor_ns=cur.top_ns,
            ceiling=None,
            top_event=cur.top_event,
            top_ns=cur.top_ns,
        )
        nxt = replace(cur, ceiling=page[-1].at) if more else latest
        return RecentResult(self._shown(page), nxt.encode(), more, latest.encode())

    def _events(
        self,
        cur: Cursor,
        since_at: float | None,
        prefix: str | None,
        limit: int,
        seen: Visible | None,
    ) -> list[_Item]:
        rows = note_changes(
            self.deps.ledger,
            after_event=cur.floor_event,
            before_at=cur.ceiling,
            path_prefix=prefix,
            limit=limit + 1 if seen is None else (limit + 1) * 4,
        )
        out: list[_Item] = []
        for e in rows:
            path = e.path or ""
            if e.event_id > cur.top_event or (since_at is not None and e.at <= since_at):
                continue
            if seen is not None and not seen(path):
                continue
            kind = _kind(e)
            who = e.caller
            out.append(
                _Item(
                    at=e.at,
                    path=path,
                    kind=kind,
                    who=who,
                    revision=e.after,
                    before=e.before,
                    note=_event_note(e, kind),
                )
            )
        return out[: limit + 1]

    def _outside(
        self,
        cur: Cursor,
        since_at: float | None,
        prefix: str | None,
        limit: int,
        seen: Visible | None,
    ) -> tuple[list[_Item], int]:
        after_ns = cur.floor_ns
        if since_at is not None:
            after_ns = max(after_ns, int(since_at * 1e9))
        before_ns = None if cur.ceiling is None else int(cur.ceiling * 1e9)

        def changed(window: int) -> list[tuple[str, int, str, int, str]]:
            conn = self.deps.index.reader()
            return titled_changes_between(conn, after_ns, before_ns, prefix, window)

        # Up to four rows a change are looked at, for the ones hoard wrote itself or the
        # caller may not see; most pages need no more than the first limit + 1.
        out: list[_Item] = []
        top_ns = 0
        for window in (limit + 1, (limit + 1) * 4):
            rows = self.deps.from_index(functools.partial(changed, window), _no_rows)
            top_ns = rows[0][3] if rows else 0  # newest first
            out = self._outside_items(rows, limit, seen)
            if len(out) > limit or len(rows) < window:
                break
        return out, top_ns

    def _outside_items(
        self, rows: list[tuple[str, int, str, int, str]], limit: int, seen: Visible | None
    ) -> list[_Item]:
        """The first ``limit + 1`` of ``rows`` that no change of hoard's left and the caller
        may see."""
        ours = revisions_written(self.deps.ledger, [r[0] for r in rows])
        out: list[_Item] = []
        for path, size, revision, mtime_ns, title in rows:
            if revision in ours.get(path, ()) or (seen is not None and not seen(path)):
                continue
            note = f"changed outside hoard ({size} bytes now)"
            at = mtime_ns / 1e9
            out.append(
                _Item(
                    at=at,
                    path=path,
                    kind="modified",
                    who=OUTSIDE,
                    revision=revision,
                    before=None,
                    note=note,
                    title=title,
                )
            )
            if len(out) > limit:
                break
        return out

    def _shown(self, page: list[_Item]) -> list[RecentChange]:
        titles = {i.path: i.title for i in page if i.title is not None}
        paths = sorted({i.path for i in page} - titles.keys())

        def indexed() -> dict[str, str]:
            return titles_of(self.deps.index.reader(), paths)

        if paths:
            titles.update(self.deps.from_index(indexed, _no_titles))
        return [
            RecentChange(
                path=i.path,
                title=titles.get(i.path) or i.path.rsplit("/", 1)[-1].removesuffix(".md"),
                kind=i.kind,
                at=iso(i.at),
                who=i.who,
                revision=i.revision,
                summary=i.note or self._summary(i),
            )
            for i in page
        ]

    def _summary(self, item: _Item) -> str:
        key = (item.path, item.kind, item.before, item.revision)
        known = self._summaries.get(key)
        if known is not None:
            return known
        ledger = self.deps.ledger
        new = self._current(item.path, item.revision) if item.revision else None
        if new is None and item.revision:
            new = preserved_bytes(ledger, item.path, item.revision)
        old = preserved_bytes(ledger, item.path, item.before) if item.before else None
        if new is None or (item.kind != "created" and old is None):
            # Bytes not (or no longer) at hand: not cached, a later call may find them.
            return "created" if item.kind == "created" else item.kind
        text = summarize(old, new)
        if len(self._summaries) >= SUMMARY_CACHE_SIZE:
            self._summaries.clear()
        self._summaries[key] = text
        return text

    def _current(self, path: str, revision: str) -> bytes | None:
        """The note's bytes now, if they are still ``revision``."""
        try:
            _rel, raw, size = self.deps.vault.read_note(path, max_bytes=SUMMARY_READ_BYTES)
        except HoardError:
            return None
        if size > len(raw) or revision_of(raw) != revision:
            return None
        return raw
