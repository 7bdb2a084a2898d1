"""Parts of a note: the section under a heading and the block with a ``^block-id``, found in
the note's text as line ranges and as byte ranges of the file. Pure: bytes in, offsets out.

- Headings are ATX headings (``## Text``) outside fenced code and outside the frontmatter. A
  section runs from its heading line to the next heading of the same or a higher level (or
  the end of the note). Heading text matches as Obsidian matches it: Unicode NFC, whitespace
  folded, case-insensitive; the first heading that matches wins, as in Obsidian's links.
  ``A#B`` is heading ``B`` inside the section of ``A`` (when no heading reads ``A#B`` itself).
- A block is the paragraph or list item whose last line ends with `` ^block-id`` (the list
  item's own lines only, not the list), or the block just above a line that is only
  ``^block-id`` (how tables and quotes get one). Block ids match case-insensitively.
- Lines end at ``\\n`` only (a ``\\r\\n`` note keeps its ``\\r`` in the line), so every range
  is exactly the file's bytes from the part's first line to the end of its last line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from hoard.core.frontmatter import split_frontmatter

ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def strip_nl(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def heading_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def code_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it is a code fence or inside fenced code."""
    out: list[bool] = []
    fence: str | None = None
    for line in lines:
        text = strip_nl(line)
        f = _FENCE.match(text)
        if f:
            mark = f.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not text.strip()[len(mark) :]:
                fence = None
            out.append(True)
        else:
            out.append(fence is not None)
    return out


def headings(lines: Sequence[str]) -> list[tuple[int, int, str]]:
    """``(line index, level, text)`` of the ATX headings outside fenced code."""
    code = code_lines(lines)
    out: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        m = None if code[i] else ATX.fullmatch(strip_nl(line))
        if m:
            out.append((i, len(m.group(1)), (m.group(2) or "").strip()))
    return out


def _section_end(hs: Sequence[tuple[int, int, str]], idx: int, level: int, stop: int) -> int:
    for j, level_j, _ in hs:
        if idx < j < stop and level_j <= level:
            return j
    return stop


def section_lines(lines: Sequence[str], heading: str) -> tuple[int, int] | None:
    """``(heading line, end)`` of the first section whose heading matches, else None."""
    hs = headings(lines)
    whole = heading_key(heading.strip().lstrip("#"))
    names = [whole] if any(heading_key(h[2]) == whole for h in hs) else []
    names = names or [heading_key(p) for p in heading.split("#") if p.strip()]
    lo, hi, found = 0, len(lines), None
    for key in names:
        hit = next(((i, lv) for i, lv, t in hs if lo <= i < hi and heading_key(t) == key), None)
        if hit is None:
            return None
        found = (hit[0], _section_end(hs, hit[0], hit[1], hi))
        lo, hi = found[0] + 1, found[1]
    return found


def _block_start(lines: Sequence[str], code: Sequence[bool], last: int) -> int:
    """The first line of the paragraph or list item whose last line is ``last``."""
    start = last
    while start > 0 and not _LIST_ITEM.match(strip_nl(lines[start])):
        prev = strip_nl(lines[start - 1])
        if not prev.strip() or code[start - 1] or ATX.fullmatch(prev):
            break
        start -= 1
    return start


def block_lines(lines: Sequence[str], block_id: str) -> tuple[int, int] | None:
    """``(first line, end)`` of the block marked ``^block_id``, else None."""
    want = block_id.strip().removeprefix("^").casefold()
    code = code_lines(lines)
    for i, line in enumerate(lines):
        text = strip_nl(line)
        m = None if code[i] else _BLOCK_ID.search(text)
        if m is None or m.group(1).casefold() != want:
            continue
        if text.strip() != m.group(0).strip():
            return _block_start(lines, code, i), i + 1
        above = i - 1
        while above >= 0 and not strip_nl(lines[above]).strip():
            above -= 1
        return (i, i + 1) if above < 0 else (_block_start(lines, code, above), i + 1)
    return None


def _body(raw: bytes) -> tuple[str, int, list[str]]:
    """The text (undecodable bytes kept as surrogates), the body's offset and its lines."""
    text = raw.decode("utf-8", "surrogateescape")
    split = split_frontmatter(text)
    at = split.body_offset
    return text, at, _LINE.findall(text[at:])


def _byte_range(text: str, at: int, lines: Sequence[str], first: int, end: int) -> tuple[int, int]:
    start = at + sum(len(line) for line in lines[:first])
    stop = start + sum(len(line) for line in lines[first:end])
    enc = "surrogateescape"
    lead = len(text[:start].encode("utf-8", enc))
    return lead, lead + len(text[start:stop].encode("utf-8", enc))


def section_span(raw: bytes, heading: str) -> tuple[int, int] | None:
    """Byte range ``(start, end)`` in ``raw`` of the section under ``heading``, else None."""
    text, at, lines = _body(raw)
    found = section_lines(lines, heading)
    return None if found is None else _byte_range(text, at, lines, *found)


def block_span(raw: bytes, block_id: str) -> tuple[int, int] | None:
    """Byte range ``(start, end)`` in ``raw`` of the block ``^block_id``, else None."""
    text, at, lines = _body(raw)
    found = block_lines(lines, block_id)
    return None if found is None else _byte_range(text, at, lines, *found)


def has_part(raw: bytes, part: str) -> bool:
    """Whether a link's part (what follows ``#``: ``^id``, ``Heading`` or ``A#B``) exists."""
    if part.startswith("^"):
        return block_span(raw, part) is not None
    return not part.strip() or section_span(raw, part) is not None
