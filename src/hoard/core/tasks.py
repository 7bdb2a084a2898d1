"""Ticking a Markdown task (``- [ ]`` / ``- [x]``) on one line of a note: exactly the one
character between the brackets changes. Pure: text in, text out."""

from __future__ import annotations

import re

from hoard.core.errors import InvalidArgument

_TASK = re.compile(r"[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\]")


def toggle_task(text: str, line: int, checked: bool) -> str:
    """``text`` with the task on ``line`` (0-based) ticked or unticked; unchanged when it
    already is. A line that is not a task is refused. Lines end at ``\n`` only, as the
    renderer counts them (``str.splitlines`` would also cut at U+2028 and form feeds)."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        raise InvalidArgument(f"the note has no line {line + 1}", line=line)
    m = _TASK.match(lines[line])
    if m is None:
        raise InvalidArgument(f"line {line + 1} is not a task", line=line)
    if (m.group(1) != " ") == checked:
        return text
    at = m.start(1)
    lines[line] = lines[line][:at] + ("x" if checked else " ") + lines[line][at + 1 :]
    return "\n".join(lines)
