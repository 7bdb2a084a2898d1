"""How deeply a JSON text nests, found without parsing it.

A JSON-RPC line nested thousands deep (``[[[[...`` or ``{"a":{"a":...``) exhausts a recursive
parser (Python's ``json`` raises ``RecursionError``), so the surfaces measure the depth
first, with a scan that costs a C-speed count for the usual message and a regular expression
that skips whole strings otherwise, and answer a JSON-RPC parse error instead.
"""

from __future__ import annotations

import json
import re

MAX_JSON_DEPTH = 64
"""The deepest nesting of objects and arrays a request may have. The deepest message hoard
reads is a tool call whose arguments hold a filter or a frontmatter value: the envelope,
``params``, ``arguments`` and a handful of levels below (under 10); the SDK's own parser stops
at 200. Anything deeper than this is refused as a parse error."""

_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_TOKEN = re.compile(_STRING + rb"|[\[\]{}]", re.DOTALL)
_STRINGS = re.compile(_STRING, re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ID_VALUE = re.compile(rb"\s*:\s*(" + _STRING + rb"|-?\d{1,20})(?=\s*[,}])")


def too_deep(text: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text`` opens more than ``limit`` objects or arrays inside one another
    (brackets inside strings do not count)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    # The brackets alone, strings left out; each pass drops every innermost pair, so a
    # balanced text nested at most ``limit`` deep is gone after ``limit`` passes.
    shape = _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        shape = shape.replace(b"[]", b"").replace(b"{}", b"")
        if not shape:
            return False
    return _scanned_too_deep(data, limit)  # not balanced (not JSON) or deep: count exactly


def _scanned_too_deep(data: bytes, limit: int) -> bool:
    depth = 0
    for m in _TOKEN.finditer(data):
        c = m.group()
        if c in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif c in (b"]", b"}"):
            depth = max(0, depth - 1)
    return False


def shallow_id(text: bytes | str) -> str | int | None:
    """The ``id`` member of the top-level object, read without parsing the rest (``None``
    when there is none a shallow scan can read: a string or a whole number)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = 0
    for m in _TOKEN.finditer(data):
        c = m.group()
        if c in (b"[", b"{"):
            depth += 1
        elif c in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and c == b'"id"':
            value = _ID_VALUE.match(data, m.end())
            if value is not None:
                return _id_of(value.group(1))
    return None


def _id_of(raw: bytes) -> str | int | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def nests_deeper(value: object, limit: int) -> bool:
    """Whether a parsed JSON ``value`` nests more than ``limit`` objects or arrays (the
    value itself counts as one when it is one); iterative, so any depth is safe to ask."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = list(item)
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
