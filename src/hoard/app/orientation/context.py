"""vault_context: one note and its neighbourhood in one answer, within a byte budget.

The parts, in the order they are filled (each labeled; the budget is spent in this order, so
what is nearest the note comes first): the note itself (at most half the budget), the notes
it links to and the notes that link to it (title and first line), its folder's ``_INDEX.md``
entry, semantically similar notes (when the model is on), the claims bound to it with their
status, its synthesis state, and the pending proposals that would change it. Every part is
built with the caller's own rights: nothing it may not see is named.
"""

from __future__ import annotations

from collections.abc import Callable

from hoard.app.honesty import Honesty
from hoard.app.reading import Reading
from hoard.app.similar import Similar
from hoard.app.writes.common import index_path_for, links_to
from hoard.app.writes.write_path import WritePath
from hoard.core.agent_results import ContextPart, ContextPartKind, ContextResult
from hoard.core.errors import HoardError, InvalidArgument
from hoard.core.frontmatter import split_frontmatter
from hoard.core.models import LinksResult
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller

MIN_BUDGET = 512
MAX_BUDGET = 256 * 1024
NEIGHBOURS = 12
"""Most notes listed in each of the link parts and the similar part."""

Part = tuple[ContextPartKind, str, str, list[str]]


def first_line(raw: bytes) -> str:
    """The first line of prose of a note's body (no heading marks, no frontmatter)."""
    body = split_frontmatter(raw.decode("utf-8", "replace")).body
    for line in body.splitlines():
        text = line.strip()
        if text and not text.startswith(("#", "---", "```", "|")):
            return text[:160]
    return ""


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, never inside a character."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


class NoteContext:
    def __init__(
        self,
        reading: Reading,
        similar: Similar,
        honesty: Honesty,
        writes: WritePath,
    ) -> None:
        self.reading = reading
        self.similarity = similar
        self.honesty = honesty
        self.writes = writes

    def context(self, path: str, *, caller: Caller, budget_bytes: int = 16384) -> ContextResult:
        if (
            isinstance(budget_bytes, bool)
            or not isinstance(budget_bytes, int)
            or not MIN_BUDGET <= budget_bytes <= MAX_BUDGET
        ):
            raise InvalidArgument(
                f"budget_bytes must be a whole number from {MIN_BUDGET} to {MAX_BUDGET}"
            )
        rel = normalize_note_path(path)
        note = self.reading.read(rel, 0, budget_bytes // 2, caller=caller)
        text = note.content + ("\n[... cut to the budget]" if note.truncated else "")
        parts: list[Part] = [("note", f"{note.path} (revision {note.revision[:12]})", text, [rel])]
        links = self.reading.links(note.path, 0, NEIGHBOURS * 2, caller=caller)
        builders: list[Callable[[str, Caller], Part | None]] = [
            lambda _rel, c: self._links_out(links, c),
            lambda rel, c: self._backlinks(links, c),
            self._folder_index,
            self._similar,
            self._claims,
            self._synthesis,
            self._proposals,
        ]
        for build in builders:
            part = build(note.path, caller)
            if part is not None:
                parts.append(part)
        return _fit(note.path, note.revision, budget_bytes, parts)

    def _listing(self, paths: list[str], caller: Caller) -> str:
        lines = []
        for p in paths[:NEIGHBOURS]:
            try:
                head = self.reading.read(p, 0, 2048, caller=caller)
            except HoardError:
                continue
            title = (head.frontmatter or {}).get("title") if head.frontmatter else None
            lines.append(f"- {p}: {title or p} — {first_line(head.content.encode())}")
        more = len(paths) - NEIGHBOURS
        if more > 0:
            lines.append(f"- ... and {more} more")
        return "\n".join(lines)

    def _links_out(self, links: LinksResult, caller: Caller) -> Part | None:
        targets = list(dict.fromkeys(o.resolved_path for o in links.outgoing if o.resolved_path))
        broken = [o.target for o in links.outgoing if o.broken]
        if not targets and not broken:
            return None
        text = self._listing(targets, caller)
        if broken:
            text += ("\n" if text else "") + "broken: " + ", ".join(dict.fromkeys(broken))
        return ("links_out", "links from this note", text, targets)

    def _backlinks(self, links: LinksResult, caller: Caller) -> Part | None:
        back = links.backlinks
        if not back:
            return None
        return ("backlinks", "notes linking here", self._listing(back, caller), back)

    def _folder_index(self, rel: str, caller: Caller) -> Part | None:
        idx = index_path_for(rel)
        if idx == rel:
            return None
        try:
            raw = self.reading.read(idx, caller=caller).content.encode()
        except HoardError:
            return None
        lines = [ln for ln in raw.decode().splitlines() if links_to(ln.encode(), rel)]
        if not lines:
            return ("folder_index", f"{idx}: does not list this note", "", [idx])
        return ("folder_index", f"entry in {idx}", "\n".join(lines), [idx])

    def _similar(self, rel: str, caller: Caller) -> Part | None:
        found = self.similarity.similar(rel, NEIGHBOURS, caller=caller)
        if found.engine != "semantic" or not found.results:
            return None
        text = "\n".join(f"- {h.path}: {h.title} ({h.score:.2f})" for h in found.results)
        return ("similar", "semantically similar notes", text, [h.path for h in found.results])

    def _claims(self, rel: str, caller: Caller) -> Part | None:
        claims = self.honesty.claims.list_claims(source_path=rel, caller=caller).claims
        if not claims:
            return None
        text = "\n".join(
            f"- {c.subject} {c.property} = {c.value} ({'live' if c.live else 'superseded'}, "
            f"bound to revision {c.source_revision[:12]})"
            for c in claims
        )
        return ("claims", "claims bound to this note", text, [])

    def _synthesis(self, rel: str, caller: Caller) -> Part | None:
        status = self.honesty.syntheses.status(rel, caller=caller)
        if status.state == "unregistered":
            return None
        drifted = ", ".join(d.path for d in status.drifted)
        text = f"{status.state}" + (f": drifted {drifted}" if drifted else "")
        return ("synthesis", "summary state", text, [d.path for d in status.drifted])

    def _proposals(self, rel: str, caller: Caller) -> Part | None:
        pending = [p for p in self.writes.proposals(caller=caller).proposals if p.path == rel]
        if not pending:
            return None
        text = "\n".join(
            f"- {p.proposal_id} ({p.tool} by {p.caller}, expires {p.expires_at})" for p in pending
        )
        return ("proposals", "pending proposals for this note", text, [rel])


def _fit(rel: str, revision: str, budget: int, parts: list[Part]) -> ContextResult:
    """The parts in order, each cut to what is left of the budget; parts that no longer fit
    even their label are left out and named."""
    left = budget
    shown: list[ContextPart] = []
    omitted: list[str] = []
    for kind, label, text, paths in parts:
        if left < 64:
            omitted.append(kind)
            continue
        cut = cut_utf8(text, left)
        left -= len(cut.encode("utf-8"))
        shown.append(
            ContextPart(kind=kind, label=label, text=cut, paths=paths, truncated=cut != text)
        )
    return ContextResult(
        path=rel,
        revision=revision,
        budget_bytes=budget,
        used_bytes=budget - left,
        truncated=bool(omitted) or any(p.truncated for p in shown),
        parts=shown,
        omitted=omitted,
    )
