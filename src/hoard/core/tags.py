"""Inline tags: ``#tag`` and ``#nested/tag`` written in a note's body. Pure: no I/O.

A tag starts at a ``#`` that opens the line or follows white space, and runs over letters,
digits, ``_``, ``-`` and ``/``. Not tags: a heading's ``#`` (followed by a space), anything
in fenced or inline code, a URL's fragment or a wikilink's heading (the ``#`` follows a
non-space), an HTML entity (``&#123;``) and pure numbers (``#123``, an issue reference).
Trailing punctuation ends a tag (``#idea.`` is ``idea``); a trailing ``/`` is dropped.
"""

from __future__ import annotations

import re
import unicodedata

_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_NUMBER = re.compile(r"[\d/-]+")


def inline_tags(body: str) -> list[str]:
    """The distinct inline tags of ``body`` as written (NFC), in order of first use."""
    out: dict[str, None] = {}
    in_fence: str | None = None
    for line in body.split("\n"):
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            in_fence = marker if in_fence is None else (None if in_fence == marker else in_fence)
            continue
        if in_fence is not None or "#" not in line:
            continue
        if "`" in line:
            line = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for m in _TAG.finditer(unicodedata.normalize("NFC", line)):
            tag = m.group(1).strip("/")
            if tag and not _NUMBER.fullmatch(tag):
                out.setdefault(tag, None)
    return list(out)
