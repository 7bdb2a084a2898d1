"""The edits of ``vault_edit``: typed edit records and the engine that applies a list of them
to a note's text, all or nothing. Pure: text in, text out, no I/O.

- The note's own newline (``\\r\\n`` or ``\\n``) is used for every line an edit adds, and a
  note that does not end with a newline still does not after an edit.
- ``append`` / ``prepend`` work on the body (after the frontmatter); ``append`` and the end
  of a section stop before a generated ``Related:`` block, which must stay byte-identical.
- Sections are ATX headings (``## Text``) outside fenced code; a section runs to the next
  heading of the same or a higher level. Heading text matches after Unicode NFC, whitespace
  folding and case folding; a leading ``##`` in the asked heading gives its level.
- ``replace_block`` replaces the paragraph or list item marked ``^block-id``
  (:mod:`hoard.core.parts`); the `` ^block-id`` stays at the end of the new text, so links
  to the block still resolve.
- ``find_replace`` counts non-overlapping literal matches in the whole text
  (``str.count``); a count other than ``expected_count`` refuses the whole list.
- Field and tag edits are :mod:`hoard.core.fm_edit`: only the named keys change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

from hoard.core import fm_edit
from hoard.core.errors import Ambiguous, HoardError, InvalidArgument, NotFound
from hoard.core.frontmatter import split_frontmatter
from hoard.core.parts import block_lines, strip_nl
from hoard.core.parts import heading_key as _heading_key
from hoard.core.parts import headings as headings  # also named here by its older importers

MAX_EDITS = 100
"""Most edits accepted in one call."""


@dataclass(frozen=True, slots=True)
class Append:
    text: str


@dataclass(frozen=True, slots=True)
class Prepend:
    text: str


@dataclass(frozen=True, slots=True)
class AppendToSection:
    heading: str
    level: int | None
    text: str


@dataclass(frozen=True, slots=True)
class ReplaceSection:
    heading: str
    level: int | None
    text: str


@dataclass(frozen=True, slots=True)
class ReplaceBlock:
    block: str
    text: str


@dataclass(frozen=True, slots=True)
class FindReplace:
    find: str
    replace: str
    expected_count: int = 1


@dataclass(frozen=True, slots=True)
class SetFields:
    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class RemoveFields:
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AddTags:
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemoveTags:
    tags: tuple[str, ...]


Edit = (
    Append
    | Prepend
    | AppendToSection
    | ReplaceSection
    | ReplaceBlock
    | FindReplace
    | SetFields
    | RemoveFields
    | AddTags
    | RemoveTags
)

OPS = (
    "append",
    "prepend",
    "append_to_section",
    "replace_section",
    "replace_block",
    "find_replace",
    "set_fields",
    "remove_fields",
    "add_tags",
    "remove_tags",
)

_OP_OF: dict[type, str] = dict(zip(get_args(Edit), OPS, strict=True))

# -- parsing the caller's list -------------------------------------------------------------------


def _str(obj: dict[str, Any], key: str, *, empty: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise InvalidArgument(f"{key!r} must be a{'' if empty else ' non-empty'} string")
    return value


def _strings(obj: dict[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidArgument(f"{key!r} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _level(obj: dict[str, Any]) -> int | None:
    level = obj.get("level")
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 6:
        raise InvalidArgument("'level' must be a heading level from 1 to 6")
    return level


def _count(obj: dict[str, Any]) -> int:
    count = obj.get("expected_count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidArgument("'expected_count' must be a whole number of at least 1")
    return count


_KEYS: dict[str, set[str]] = {
    "append": {"text"},
    "prepend": {"text"},
    "append_to_section": {"heading", "level", "text"},
    "replace_section": {"heading", "level", "text"},
    "replace_block": {"block", "text"},
    "find_replace": {"find", "replace", "expected_count"},
    "set_fields": {"fields"},
    "remove_fields": {"keys"},
    "add_tags": {"tags"},
    "remove_tags": {"tags"},
}


def _parse_one(obj: dict[str, Any]) -> Edit:
    op = obj.get("op")
    if op not in _KEYS:
        raise InvalidArgument(f"'op' must be one of {', '.join(OPS)}", op=op)
    extra = set(obj) - _KEYS[op] - {"op"}
    if extra:
        raise InvalidArgument(f"unknown key(s) for {op}: {', '.join(sorted(extra))}")
    if op == "append":
        return Append(_str(obj, "text"))
    if op == "prepend":
        return Prepend(_str(obj, "text"))
    if op == "append_to_section":
        return AppendToSection(_str(obj, "heading"), _level(obj), _str(obj, "text"))
    if op == "replace_section":
        return ReplaceSection(_str(obj, "heading"), _level(obj), _str(obj, "text", empty=True))
    if op == "replace_block":
        return ReplaceBlock(_str(obj, "block").strip().removeprefix("^"), _str(obj, "text"))
    if op == "find_replace":
        return FindReplace(_str(obj, "find"), _str(obj, "replace", empty=True), _count(obj))
    if op == "set_fields":
        fields = obj.get("fields")
        if not isinstance(fields, dict) or not fields or not all(k for k in fields):
            raise InvalidArgument("'fields' must be a non-empty object of key: value")
        for key, value in fields.items():
            fm_edit.flow(value)  # refuses what cannot be written
            if not isinstance(key, str) or "\n" in key:
                raise InvalidArgument(f"bad field name {key!r}")
        return SetFields(tuple(fields.items()))
    if op == "remove_fields":
        return RemoveFields(_strings(obj, "keys"))
    tags = tuple(t.removeprefix("#") for t in _strings(obj, "tags"))
    return AddTags(tags) if op == "add_tags" else RemoveTags(tags)


def parse_edits(raw: object) -> list[Edit]:
    """The caller's list of ``{"op": ...}`` objects as typed edits (``invalid_argument``
    naming the edit's index when one is malformed)."""
    if not isinstance(raw, list) or not raw:
        raise InvalidArgument("edits must be a non-empty list of edit objects")
    if len(raw) > MAX_EDITS:
        raise InvalidArgument(f"at most {MAX_EDITS} edits in one call", limit=MAX_EDITS)
    out: list[Edit] = []
    for i, obj in enumerate(raw):
        if not isinstance(obj, dict):
            raise InvalidArgument(f"edit {i} is not an object", edit=i)
        try:
            out.append(_parse_one(obj))
        except HoardError as exc:
            raise _at(exc, i, obj.get("op")) from None
    return out


def _at(exc: HoardError, index: int, op: object) -> HoardError:
    exc.message = f"edit {index} ({op}): {exc.message}"
    exc.args = (exc.message,)
    exc.details = {"edit": index, "op": op, **exc.details}
    return exc


# -- the document ------------------------------------------------------------------------------

_ASKED = re.compile(r"(#{1,6})[ \t]+(.*)")


def newline_of(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def _new_lines(text: str, nl: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.removesuffix("\n")
    return [line + nl for line in text.split("\n")]


@dataclass(slots=True)
class _Doc:
    head: str
    lines: list[str]
    nl: str

    def text(self) -> str:
        return self.head + "".join(self.lines)

    def splice(self, start: int, stop: int, new: list[str]) -> None:
        """Replace ``lines[start:stop]`` keeping the note's final-newline state."""
        lines = self.lines
        if not lines and new and self.head and not self.head.endswith("\n"):
            self.head += self.nl  # the closing fence had no newline: the body starts below it
            new[-1] = strip_nl(new[-1])
        unterminated = bool(lines) and not lines[-1].endswith("\n")
        if stop == len(lines) and unterminated:
            if start == stop and new:
                lines[-1] += self.nl
                new[-1] = strip_nl(new[-1])
            elif new:
                new[-1] = strip_nl(new[-1])
            elif start > 0:
                lines[start - 1] = strip_nl(lines[start - 1])
        lines[start:stop] = new

    def end(self) -> int:
        """Where the body's own text ends: at a ``Related:`` line, else at its end."""
        for i, line in enumerate(self.lines):
            if strip_nl(line) == "Related:":
                return i
        return len(self.lines)

    def last_text(self, start: int, stop: int) -> int:
        """The index after the last non-blank line in ``[start, stop)`` (``start`` if none)."""
        for i in range(stop - 1, start - 1, -1):
            if strip_nl(self.lines[i]).strip():
                return i + 1
        return start


def _doc(text: str) -> _Doc:
    split = split_frontmatter(text)
    head, body = text[: split.body_offset], text[split.body_offset :]
    return _Doc(head, body.splitlines(keepends=True), newline_of(text))


def _section(doc: _Doc, heading: str, level: int | None) -> tuple[int, int]:
    """``(heading line, end of section)`` for one heading; ``not_found`` / ``ambiguous``."""
    asked = _ASKED.fullmatch(heading.strip())
    if asked is not None:
        level, heading = level or len(asked.group(1)), asked.group(2)
    key = _heading_key(heading)
    hs = headings(doc.lines)
    hits = [h for h in hs if _heading_key(h[2]) == key and (level is None or h[1] == level)]
    if not hits:
        raise NotFound(f"no heading {heading!r} in the note", heading=heading, level=level)
    if len(hits) > 1:
        raise Ambiguous(
            f"{len(hits)} headings read {heading!r}; give its level or make it unique",
            heading=heading,
            lines=[h[0] for h in hits],
        )
    idx, lvl, _ = hits[0]
    stop = doc.end()
    if idx >= stop:
        stop = len(doc.lines)
    for j, level_j, _ in hs:
        if idx < j < stop and level_j <= lvl:
            stop = j
            break
    return idx, stop


def _replace_block(doc: _Doc, edit: ReplaceBlock) -> None:
    found = block_lines(doc.lines, edit.block)
    if found is None:
        raise NotFound(f"no block ^{edit.block} in the note", block=edit.block)
    first, end = found
    marker = f" ^{edit.block}"
    if strip_nl(doc.lines[end - 1]).strip().startswith("^"):  # the id on a line of its own
        doc.splice(first, doc.last_text(first, end - 1), _new_lines(edit.text, doc.nl))
        return
    new = _new_lines(edit.text, doc.nl)
    last = strip_nl(new[-1]).rstrip()
    if not last.endswith(marker.strip()):
        new[-1] = last + marker + doc.nl
    doc.splice(first, end, new)


def _apply_fields(doc: _Doc, edit: SetFields | RemoveFields | AddTags | RemoveTags) -> None:
    block = fm_edit.open_block(doc.head, doc.nl)
    if isinstance(edit, SetFields):
        fm_edit.set_fields(block, dict(edit.fields), doc.nl)
    elif isinstance(edit, RemoveFields):
        fm_edit.remove_fields(block, edit.keys)
    else:
        tags = fm_edit.tags_of(block)
        if isinstance(edit, AddTags):
            new = tags + [t for t in dict.fromkeys(edit.tags) if t not in tags]
        else:
            new = [t for t in tags if t not in edit.tags]
        if new == tags:
            return
        fm_edit.set_fields(block, {"tags": new}, doc.nl)
    doc.head = fm_edit.render(block)


def _apply_one(doc: _Doc, edit: Edit) -> _Doc:
    nl = doc.nl
    if isinstance(edit, Append):
        at = doc.last_text(0, doc.end())
        doc.splice(at, at, _new_lines(edit.text, nl))
    elif isinstance(edit, Prepend):
        doc.splice(0, 0, _new_lines(edit.text, nl))
    elif isinstance(edit, AppendToSection):
        idx, stop = _section(doc, edit.heading, edit.level)
        at = doc.last_text(idx + 1, stop)
        doc.splice(at, at, _new_lines(edit.text, nl))
    elif isinstance(edit, ReplaceSection):
        idx, stop = _section(doc, edit.heading, edit.level)
        new = _new_lines(edit.text, nl) if edit.text.strip("\r\n") else []
        doc.splice(idx + 1, doc.last_text(idx + 1, stop), new)
    elif isinstance(edit, ReplaceBlock):
        _replace_block(doc, edit)
    elif isinstance(edit, FindReplace):
        text = doc.text()
        find = edit.find.replace("\r\n", "\n").replace("\n", nl)
        repl = edit.replace.replace("\r\n", "\n").replace("\n", nl)
        found = text.count(find)
        if found != edit.expected_count:
            raise InvalidArgument(
                f"found {found} match(es) of the text, expected {edit.expected_count}",
                found=found,
                expected_count=edit.expected_count,
            )
        return _doc(text.replace(find, repl))
    else:
        _apply_fields(doc, edit)
    return doc


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """The note's text after every edit, in order; the first edit that cannot apply refuses
    the whole list (its error names the edit's index and op)."""
    doc = _doc(text)
    for i, edit in enumerate(edits):
        try:
            doc = _apply_one(doc, edit)
        except HoardError as exc:
            raise _at(exc, i, _OP_OF[type(edit)]) from None
    return doc.text()
