"""Whether a save from outside hoard kept an agent's write: pure, no I/O.

A save *keeps* a write when every line the write added is still a line of the saved bytes.
The lines a write added are the lines of its bytes that were not lines of the revision it
replaced (all of them when it created the note); lines are compared with trailing white
space removed, and blank lines do not count. Order and position are not compared: a save
that moved the write's lines, or added lines of its own around them, keeps it; one from a
buffer read before the write (which lacks them) does not.
"""

from __future__ import annotations


def _lines(raw: bytes) -> set[str]:
    text = raw.decode("utf-8", errors="replace")
    return {line.rstrip() for line in text.splitlines() if line.strip()}


def lines_added(before: bytes | None, written: bytes) -> set[str]:
    """The lines of ``written`` that ``before`` did not have."""
    return _lines(written) - (set() if before is None else _lines(before))


def keeps_write(before: bytes | None, written: bytes, saved: bytes) -> bool:
    """Whether ``saved`` still holds every line the write of ``written`` over ``before``
    added."""
    return lines_added(before, written) <= _lines(saved)
