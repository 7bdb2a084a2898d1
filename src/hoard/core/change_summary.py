"""A one-line account of what a change did to a note: the frontmatter fields it touched, the
sections whose text changed (by heading), and the bytes it added and removed. Pure.

``summarize(None, new)`` describes a creation, ``summarize(old, None)`` a removal.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from hoard.core.frontmatter import split_frontmatter
from hoard.core.parts import headings

MAX_NAMED = 4
"""Fields or sections named before "and N more"."""

_LINE_LIMIT = 4000
"""Past this many lines on a side, sections are not compared (bytes and fields still are)."""


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _field_lines(yaml_text: str) -> dict[str, str]:
    """Top-level keys of a frontmatter block with the lines that belong to each (as text:
    a changed value, nested or not, changes its key's text)."""
    fields: dict[str, str] = {}
    key: str | None = None
    for line in yaml_text.splitlines():
        if line and not line[0].isspace() and not line.startswith(("-", "#")) and ":" in line:
            key = line.split(":", 1)[0].strip()
            fields[key] = line
        elif key is not None:
            fields[key] += "\n" + line
    return fields


def changed_fields(old_yaml: str, new_yaml: str) -> list[str]:
    old, new = _field_lines(old_yaml), _field_lines(new_yaml)
    return sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))


def _section_of_line(lines: Sequence[str]) -> list[str]:
    """For each line, the heading of the section it lies in ("" before the first heading)."""
    marks = {i: text for i, _level, text in headings(lines)}
    out: list[str] = []
    current = ""
    for i in range(len(lines)):
        current = marks.get(i, current)
        out.append(current)
    return out


def changed_sections(old_body: str, new_body: str) -> list[str]:
    """Headings of the sections (in the new text where it has them) with changed lines."""
    a, b = old_body.splitlines(), new_body.splitlines()
    if len(a) > _LINE_LIMIT or len(b) > _LINE_LIMIT:
        return []
    sec_a, sec_b = _section_of_line(a), _section_of_line(b)
    touched: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        names = sec_b[j1:j2] or sec_b[max(j1 - 1, 0) : j1] or sec_a[i1:i2]
        for name in names:
            if name not in touched:
                touched.append(name)
    return touched


def _named(label: str, names: list[str]) -> str:
    shown = ", ".join(n if n else "(top)" for n in names[:MAX_NAMED])
    more = len(names) - MAX_NAMED
    return f"{label} {shown}" + (f" and {more} more" if more > 0 else "")


def byte_delta(old: bytes, new: bytes) -> tuple[int, int]:
    """Bytes added and removed, from a line diff (a changed line counts both ways)."""
    added = removed = 0
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(a) > _LINE_LIMIT or len(b) > _LINE_LIMIT:
        return max(len(new) - len(old), 0), max(len(old) - len(new), 0)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += sum(len(x) for x in a[i1:i2])
            added += sum(len(x) for x in b[j1:j2])
    return added, removed


def summarize(old: bytes | None, new: bytes | None) -> str:
    """One line: what changed between ``old`` and ``new`` (either may be missing)."""
    if old is None and new is None:
        return "no content"
    if old is None:
        assert new is not None
        return f"created ({len(new)} bytes)"
    if new is None:
        return f"removed ({len(old)} bytes)"
    if old == new:
        return "no change to the bytes"
    a, b = split_frontmatter(_text(old)), split_frontmatter(_text(new))
    parts: list[str] = []
    fields = changed_fields(a.yaml_text, b.yaml_text)
    if fields:
        parts.append(_named("fields", fields))
    sections = changed_sections(a.body, b.body)
    if sections:
        parts.append(_named("sections", sections))
    added, removed = byte_delta(old, new)
    parts.append(f"+{added}/-{removed} bytes")
    return "; ".join(parts)
