"""A strict fast path for the frontmatter most notes have, with PyYAML as the judge.

Most frontmatter is a flat mapping of plain strings and lists of plain strings. The
pure-Python YAML loader spends about a millisecond on each; this parser handles that subset
in microseconds and returns ``None`` for anything it is not certain about (comments, quotes
with escapes, nested mappings, anchors, tags, any scalar YAML would type as a number, bool,
null or date, duplicate keys...), which then goes to the hardened loader. For input it
accepts, the result equals the hardened loader's (a property test holds it to that).
"""

from __future__ import annotations

import re
from typing import Any

from yaml.resolver import Resolver

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*?))?[ ]*\Z")
_ITEM_LINE = re.compile(r"([ ]*)-[ ]+(.*?)[ ]*\Z")
_BAD_CHARS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff#\t]"
)
_PLAIN_START_BAD = set("-?:,[]{}#&*!|>'\"%@` ")

# The implicit resolvers a plain scalar must escape to be a string (timestamps excluded:
# hoard keeps dates as the text that was written).
_IMPLICIT: dict[str, list[re.Pattern[str]]] = {}
for _first, _resolvers in Resolver.yaml_implicit_resolvers.items():
    _IMPLICIT[_first or ""] = [rx for tag, rx in _resolvers if tag != "tag:yaml.org,2002:timestamp"]


MAX_SIMPLE_NODES = 1000


def _plain(s: str) -> str | None:
    """A plain scalar that YAML reads as exactly this string, else ``None``."""
    if not s or s[0] in _PLAIN_START_BAD or ": " in s or s.endswith(":") or " #" in s:
        return None
    for rx in _IMPLICIT.get(s[0], ()):
        if rx.match(s):
            return None
    return s


def _scalar(s: str) -> str | None:
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        inner = s[1:-1]
        return inner if '"' not in inner and "\\" not in inner else None
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        inner = s[1:-1]
        return inner if "'" not in inner else None
    return _plain(s)


def _flow_list(s: str) -> list[str] | None:
    inner = s[1:-1].strip(" ")
    if not inner:
        return []
    if any(c in inner for c in "[]{}'\":?&*!|>%@`"):  # flow context: be conservative
        return None
    out: list[str] = []
    for part in inner.split(","):
        v = _plain(part.strip(" "))
        if v is None:
            return None
        out.append(v)
    return out


def parse_simple(yaml_text: str) -> dict[str, Any] | None:
    """The mapping, when the block is in the simple subset; ``None`` to defer to YAML."""
    if _BAD_CHARS.search(yaml_text):
        return None
    if yaml_text.count("\n") + yaml_text.count(",") > MAX_SIMPLE_NODES:
        return None  # large enough that the loader's node cap must judge it
    out: dict[str, Any] = {}
    key: str | None = None  # a key whose value is an open block list
    indent = -1  # the indentation of that list's items
    for raw in yaml_text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if "\r" in line:
            return None
        if not line.strip():
            continue
        if line[0] == " " or line[0] == "-":
            m = _ITEM_LINE.match(line)
            if m is None or key is None:
                return None
            if indent < 0:
                indent = len(m.group(1))
            elif len(m.group(1)) != indent:
                return None
            item = _scalar(m.group(2))
            if item is None:
                return None
            value = out[key]
            if value is None:
                value = out[key] = []
            value.append(item)
            continue
        m = _KEY_LINE.match(line)
        if m is None:
            return None
        name, rest = m.group(1), m.group(2)
        if name in out or _plain(name) is None:
            return None
        key = None
        indent = -1
        if rest is None or rest == "":
            out[name] = None
            key = name
        elif rest.startswith("["):
            if not rest.endswith("]"):
                return None
            items = _flow_list(rest)
            if items is None:
                return None
            out[name] = items
        else:
            v = _scalar(rest)
            if v is None:
                return None
            out[name] = v
    return out
