"""vault_read, vault_list and vault_links: reads of the files as they are now, and
of the link graph, as a caller who may not see protected notes without a grant."""

from __future__ import annotations

import time
from dataclasses import replace

from hoard.adapters.index.graph import LinkPage, Outgoing, link_page, note_id
from hoard.adapters.index.rows import frontmatter_of
from hoard.app.deps import Deps
from hoard.app.honesty import Budget, Honesty
from hoard.app.read_attachment import read_attachment
from hoard.core.attachments import is_attachment_path, note_or_attachment_path
from hoard.core.byte_window import utf8_window
from hoard.core.errors import (
    HoardError,
    InvalidArgument,
    NotFound,
    Protected,
    TooLarge,
    Unavailable,
)
from hoard.core.models import (
    LinksResult,
    ListEntry,
    ListResult,
    NotePart,
    OutgoingLink,
    ReadResult,
)
from hoard.core.note import revision_of
from hoard.core.parts import block_span, has_part, section_span
from hoard.core.paths import normalize_note_path, normalize_rel_path
from hoard.core.policy import Caller
from hoard.core.result_warnings import (
    STORE_UNAVAILABLE,
    EncodingWarning,
    ResultWarning,
    time_budget_warning,
)
from hoard.core.times import iso

READ_HARD_CAP = 256 * 1024 * 1024


def whole_number(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgument(f"{name} must be a whole number of bytes, {low} or more")
    return value


class Reading:
    def __init__(self, deps: Deps, honesty: Honesty) -> None:
        self.deps = deps
        self.honesty = honesty

    def note_size(self, path: object) -> int | None:
        """See :meth:`hoard.adapters.fs.vault.Vault.note_size` (no access check: a size only)."""
        return self.deps.vault.note_size(path)

    def read(
        self,
        path: str,
        offset: int = 0,
        max_bytes: int | None = None,
        *,
        caller: Caller,
        heading: str | None = None,
        block: str | None = None,
        page: int | None = None,
    ) -> ReadResult:
        """The note's bytes from ``offset`` on; or, given a ``heading`` or a ``block`` id,
        that part alone (``offset`` then counts from the part's start) with its byte range.
        An attachment (a PDF, a Word file...) reads as its extracted text, or one ``page``
        of it."""
        self.deps.access.require("read", caller=caller)
        attachment = isinstance(path, str) and is_attachment_path(path)
        rel_asked = note_or_attachment_path(path)
        self.deps.access.check_visible(rel_asked, caller=caller)
        ceiling = self.deps.config.limits.read_max_bytes
        offset = whole_number(offset, "offset", 0)
        window = (
            ceiling if max_bytes is None else min(whole_number(max_bytes, "max_bytes", 1), ceiling)
        )
        if attachment or page is not None:
            return read_attachment(self.deps, rel_asked, offset, window, page, heading, block)
        rel, raw, size = self.deps.vault.read_note(path, max_bytes=READ_HARD_CAP + 1)
        if size > READ_HARD_CAP:
            raise TooLarge(
                f"{rel!r} is {size} bytes; hoard reads notes up to {READ_HARD_CAP}",
                path=rel,
                size=size,
            )
        size = len(raw)
        part = _part(rel, raw, heading, block)
        data = raw if part is None else raw[part.start : part.end]
        content, end, valid = utf8_window(data, offset, window)
        warnings: list[ResultWarning] = []
        if not valid:
            warnings.append(
                EncodingWarning(
                    kind="encoding",
                    message="the note is not valid UTF-8; bad bytes are shown as U+FFFD",
                )
            )
        warnings.extend(self._synthesis_warnings(rel, caller))
        return ReadResult(
            path=rel,
            revision=revision_of(raw),
            size=size,
            content=content,
            offset=offset,
            next_offset=end if end < len(data) else None,
            truncated=end < len(data),
            frontmatter=frontmatter_of(raw),
            warnings=warnings,
            part=part,
        )

    def _synthesis_warnings(self, rel: str, caller: Caller) -> list[ResultWarning]:
        """A registered summary's synthesis state, or the label of a read answered while
        the shared store is unreachable."""
        try:
            return list(self.honesty.warnings_for([rel], Budget(), caller=caller).get(rel, []))
        except Unavailable:
            return [STORE_UNAVAILABLE]

    def list(
        self, path: str = "", recursive: bool = False, limit: int = 500, *, caller: Caller
    ) -> ListResult:
        self.deps.access.require("read", caller=caller)
        cap = self.deps.config.limits.list_max_entries
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= cap:
            raise InvalidArgument(f"limit must be a whole number from 1 to {cap}")
        seen = self.deps.access.visibility(caller=caller)
        folder = normalize_rel_path(path, allow_root=True) if path else ""
        if folder and not self.deps.access.in_reach(folder + "/", caller=caller):
            raise NotFound(f"no folder at {folder!r}", path=folder)
        if seen is not None and path and not seen(normalize_rel_path(path) + "/"):
            raise Protected(f"{path!r} is protected", path=path)
        rel, entries, truncated = self.deps.vault.list_dir(path or "", recursive, limit, seen)
        return ListResult(
            path=rel,
            entries=[ListEntry(e.path, e.kind, e.size, iso(e.mtime)) for e in entries],
            truncated=truncated,
        )

    def links(
        self, path: str, offset: int = 0, limit: int | None = None, *, caller: Caller
    ) -> LinksResult:
        """A page of a note's outgoing links and backlinks: at most ``limit`` of each
        (default and ceiling ``limits.links_max``) from ``offset`` on."""
        self.deps.access.require("read", caller=caller)
        rel = normalize_note_path(path)
        self.deps.access.check_visible(rel, caller=caller)
        cap = self.deps.config.limits.links_max
        offset = whole_number(offset, "offset", 0)
        size = cap if limit is None else min(whole_number(limit, "limit", 1), cap)
        seen = self.deps.access.visibility(caller=caller)
        budget_ms = self.deps.config.limits.request_time_ms
        deadline = time.monotonic() + budget_ms / 1000
        page = self.deps.from_index(lambda: _graph(self.deps, rel, size + 1, offset, deadline))
        out = page.outgoing
        back = [b for b in page.backlinks if seen is None or seen(b)][offset : offset + size + 1]
        more = len(out) > size or len(back) > size or page.timed_out

        def shown(o: Outgoing) -> OutgoingLink:
            # A link to a note the caller may not see reads exactly like a broken link; of
            # the notes sharing an alias, only those the caller sees are named.
            hidden = o.resolved_path is not None and seen is not None and not seen(o.resolved_path)
            resolved, is_broken = (None, True) if hidden else (o.resolved_path, o.broken)
            by = None if hidden else o.resolved_by
            among = [p for p in o.ambiguous if seen is None or seen(p)]
            if len(among) == 1:
                resolved, is_broken, by, among = among[0], False, "alias", []
            return OutgoingLink(
                o.target, resolved, is_broken, o.heading, o.alias, o.embed, o.line, by, among
            )

        outs = _check_parts(self.deps, [shown(o) for o in out[:size]])
        return LinksResult(
            path=rel,
            outgoing=outs,
            backlinks=back[:size],
            broken=list(dict.fromkeys(_named(o) for o in outs if o.broken)),
            offset=offset,
            next_offset=offset + size if more and not page.timed_out else None,
            truncated=more,
            warnings=[time_budget_warning(budget_ms, found=bool(out))] if page.timed_out else [],
        )


def _check_parts(deps: Deps, links: list[OutgoingLink]) -> list[OutgoingLink]:
    """Links to a heading or block the target note lacks are broken (``resolved_path``
    still names the note); each target is read once."""
    have: dict[str, bytes | None] = {}
    out = []
    for link in links:
        path = link.resolved_path
        if path is None or link.broken or not link.heading:
            out.append(link)
            continue
        if path not in have:
            have[path] = _raw(deps, path)
        raw = have[path]
        missing = raw is not None and not has_part(raw, link.heading)
        out.append(replace(link, broken=True) if missing else link)
    return out


def _raw(deps: Deps, path: str) -> bytes | None:
    try:
        _, raw, size = deps.vault.read_note(path, max_bytes=READ_HARD_CAP + 1)
    except HoardError:  # gone or unreadable since it was indexed: not a part's fault
        return None
    return raw if size <= READ_HARD_CAP else None


def _named(link: OutgoingLink) -> str:
    """A broken link as listed: its target, with the missing part when the note exists."""
    if link.resolved_path is not None and link.heading:
        return f"{link.target}#{link.heading}"
    return link.target


def _part(rel: str, raw: bytes, heading: str | None, block: str | None) -> NotePart | None:
    """The asked part's byte range (``not_found`` naming it when the note has none)."""
    if heading is not None and block is not None:
        raise InvalidArgument("give a heading or a block, not both")
    if heading is not None:
        if not heading.strip():
            raise InvalidArgument("heading must not be empty")
        span = section_span(raw, heading)
        if span is None:
            raise NotFound(f"{rel!r} has no heading {heading!r}", path=rel, heading=heading)
        return NotePart("heading", heading, *span)
    if block is not None:
        name = block.strip().removeprefix("^")
        if not name:
            raise InvalidArgument("block must be a block id such as ^intro")
        span = block_span(raw, name)
        if span is None:
            raise NotFound(f"{rel!r} has no block ^{name}", path=rel, block=name)
        return NotePart("block", name, *span)
    return None


def _graph(deps: Deps, rel: str, limit: int, offset: int, deadline: float) -> LinkPage:
    """``limit`` outgoing links from ``offset`` on and every backlink, from the index
    brought up to date, read within ``deadline``."""
    deps.ensure_fresh()
    deps.index.refresh_paths([rel])
    conn = deps.index.reader()
    row_id = note_id(conn, rel)
    if row_id is None:
        raise NotFound(f"no note at {rel!r}", path=rel)
    return link_page(conn, row_id, rel, limit, offset, deadline)
