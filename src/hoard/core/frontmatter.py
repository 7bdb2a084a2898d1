"""Splitting and parsing YAML frontmatter, safely, on hostile input. Pure: no I/O.

Guards, in order: the block is found by line scan (no regex backtracking); its size is capped
before any YAML runs; the pure-Python ``SafeLoader`` is used (the C loader has crashed the
process on deeply nested input); composition depth is capped; anchors, aliases, merge keys,
explicit tags and duplicate keys are refused; timestamps are *not* interpreted (a date stays
the string that was written, so the contract can judge it); and every exception escaping the
parser is caught and reported as a :class:`FrontmatterError` with a rule name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from hoard.core.yaml_fast import parse_simple

PARSE_CAP_BYTES = 64 * 1024
"""Frontmatter larger than this is not parsed at all (the contract's own cap is smaller)."""

MAX_DEPTH = 16
"""Deepest nesting of mappings/sequences accepted."""

MAX_NODES = 5000
"""Most YAML nodes accepted in one block."""


@dataclass(frozen=True, slots=True)
class FrontmatterError:
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class Split:
    """A note's text cut into its frontmatter block and body."""

    has_block: bool
    yaml_text: str
    body: str
    block_bytes: int
    body_offset: int
    """Character offset of the body in the original text."""


_FENCE = re.compile(r"---[ \t]*\r?\n?")


def split_frontmatter(text: str) -> Split:
    """Find a leading ``---`` … ``---`` block. An unterminated block is not a block."""
    if text.startswith("\ufeff"):
        text = text[1:]
        bom = 1
    else:
        bom = 0
    first_nl = text.find("\n")
    first_line = text if first_nl == -1 else text[:first_nl]
    if first_line.rstrip("\r").rstrip(" \t") != "---":
        return Split(has_block=False, yaml_text="", body=text, block_bytes=0, body_offset=bom)
    pos = first_nl + 1
    while pos <= len(text) and first_nl != -1:
        nl = text.find("\n", pos)
        line = text[pos:] if nl == -1 else text[pos:nl]
        if line.rstrip("\r").rstrip(" \t") in ("---", "..."):
            yaml_text = text[first_nl + 1 : pos]
            end = len(text) if nl == -1 else nl + 1
            return Split(
                has_block=True,
                yaml_text=yaml_text,
                body=text[end:],
                block_bytes=len(text[:end].encode("utf-8")),
                body_offset=end + bom,
            )
        if nl == -1:
            break
        pos = nl + 1
    return Split(has_block=False, yaml_text="", body=text, block_bytes=0, body_offset=bom)


class _DateAsString(Resolver):
    pass


# Same implicit resolvers as SafeLoader, minus timestamps: dates stay as written.
_DateAsString.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in Resolver.yaml_implicit_resolvers.items()
}


class _Refused(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class _HardenedConstructor(SafeConstructor):
    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused("merge_key", "YAML merge keys ('<<') are not allowed")
            key = self.construct_object(key_node, deep=True)
            try:
                hashable = key in seen
            except TypeError as exc:
                raise _Refused("yaml_syntax", "a mapping key is not a plain value") from exc
            if hashable:
                raise _Refused("duplicate_key", f"duplicate key {key!r}")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_STANDARD_TAGS = {
    "tag:yaml.org,2002:" + t
    for t in (
        "str",
        "int",
        "float",
        "bool",
        "null",
        "seq",
        "map",
        "merge",
        "binary",
        "set",
        "omap",
        "pairs",
    )
}


class _HardenedLoader(Reader, Scanner, Parser, Composer, _HardenedConstructor, _DateAsString):
    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        _HardenedConstructor.__init__(self)
        _DateAsString.__init__(self)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise _Refused("yaml_alias", "YAML aliases ('*name') are not allowed")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused("yaml_anchor", "YAML anchors ('&name') are not allowed")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and tag not in _STANDARD_TAGS:
            raise _Refused("custom_tag", f"custom YAML tag {tag!r} is not allowed")
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _Refused("yaml_too_complex", f"more than {MAX_NODES} YAML nodes")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused("yaml_depth", f"nested deeper than {MAX_DEPTH} levels")
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:binary":
            raise _Refused("custom_tag", "binary YAML values are not allowed")
        return node


@dataclass(frozen=True, slots=True)
class Parsed:
    data: dict[str, Any] | None
    error: FrontmatterError | None


def parse_yaml_block(yaml_text: str) -> Parsed:
    """Parse one frontmatter block. Never raises: failures come back as ``error``."""
    size = len(yaml_text.encode("utf-8", errors="replace"))
    if size > PARSE_CAP_BYTES:
        return Parsed(
            None,
            FrontmatterError(
                "frontmatter_size",
                f"frontmatter is {size} bytes; not parsed above {PARSE_CAP_BYTES}",
            ),
        )
    simple = parse_simple(yaml_text)
    if simple is not None:
        return Parsed(simple, None)
    loader: _HardenedLoader | None = None
    try:
        loader = _HardenedLoader(yaml_text)  # the reader already checks every character
        data = loader.get_single_data()
    except _Refused as exc:
        return Parsed(None, FrontmatterError(exc.rule, exc.message))
    except (yaml.YAMLError, ConstructorError) as exc:
        first = str(exc).strip().splitlines()
        return Parsed(None, FrontmatterError("yaml_syntax", " ".join(first)[:300]))
    except RecursionError:
        return Parsed(None, FrontmatterError("yaml_depth", "frontmatter nested too deeply"))
    except Exception as exc:  # the pure-Python loader also raises ValueError & co.
        return Parsed(None, FrontmatterError("yaml_syntax", f"{type(exc).__name__}: {exc}"[:300]))
    finally:
        if loader is not None:
            loader.dispose()
    if data is None:
        return Parsed({}, None)
    if not isinstance(data, dict):
        return Parsed(
            None, FrontmatterError("not_a_mapping", "frontmatter is not a key: value mapping")
        )
    if not all(isinstance(k, str) for k in data):
        return Parsed(
            None, FrontmatterError("yaml_syntax", "every frontmatter key must be a string")
        )
    return Parsed(data, None)
