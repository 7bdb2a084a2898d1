"""Field edits inside a note's frontmatter that touch only the keys named. Pure: no I/O.

The block is edited as text, line by line: a top-level key owns its own line and the lines
that continue its value (indented lines, ``- item`` lines, blank lines between them). Every
other line, comments and key order included, stays byte-identical. A value is written in
flow style on the key's line (a list that was a block list stays a block list). After each
edit the block is parsed again and must equal the old mapping with exactly the requested
change; anything else (a layout this line model does not understand) is refused rather than
guessed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hoard.core.errors import InvalidArgument
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter

_KEY_LINE = re.compile(
    r"""(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:{}\[\],&*!|>%@`][^:]*?)"""
    r"[ \t]*:(?:[ \t]|$)"
)
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_FLOW_UNSAFE = set(",[]{}#:\"'")
_BLOCK_ITEM = re.compile(r"([ \t]*)-(?:[ \t]|$)")


@dataclass(slots=True)
class Block:
    """A frontmatter block cut into its opening line, its YAML lines and its closing line."""

    prefix: str
    lines: list[str]
    suffix: str
    created: bool
    original: str
    """The text before the body as it was (what a created block that stayed empty renders)."""


def _strip_nl(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def open_block(head: str, nl: str) -> Block:
    """The block of ``head`` (the text before the body); a note without one gets an empty
    block that is only written out when a field is set."""
    if not head.strip("\ufeff"):
        return Block(
            prefix=head + "---" + nl, lines=[], suffix="---" + nl, created=True, original=head
        )
    split = split_frontmatter(head)
    start = head.index("\n") + 1
    end = start + len(split.yaml_text)
    lines = head[start:end].splitlines(keepends=True)
    return Block(prefix=head[:start], lines=lines, suffix=head[end:], created=False, original=head)


def render(block: Block) -> str:
    if block.created and not block.lines:
        return block.original
    return block.prefix + "".join(block.lines) + block.suffix


def mapping_of(block: Block) -> dict[str, Any]:
    parsed = parse_yaml_block("".join(block.lines))
    if parsed.data is None:
        why = parsed.error.message if parsed.error else "not a mapping"
        raise InvalidArgument(f"the frontmatter does not parse ({why}); edit it whole instead")
    return parsed.data


def _key_of(line: str) -> str | None:
    m = _KEY_LINE.match(_strip_nl(line))
    if m is None:
        return None
    raw = m.group("key")
    if raw[0] in "\"'":
        parsed = parse_yaml_block(f"{raw}: 0\n")
        if parsed.data is None or len(parsed.data) != 1:
            return None
        return next(iter(parsed.data))
    return raw.strip()


def _continues(line: str) -> bool:
    text = _strip_nl(line)
    return text[:1] in (" ", "\t") or text == "-" or text.startswith("- ")


def extent(lines: Sequence[str], key: str) -> tuple[int, int] | None:
    """``(start, stop)`` of the lines that hold ``key`` and its value."""
    for i, line in enumerate(lines):
        if _key_of(line) != key:
            continue
        j = i + 1
        while j < len(lines):
            if _continues(lines[j]):
                j += 1
                continue
            if not _strip_nl(lines[j]).strip():
                k = j
                while k < len(lines) and not _strip_nl(lines[k]).strip():
                    k += 1
                if k < len(lines) and _continues(lines[k]):
                    j = k
                    continue
            break
        return i, j
    return None


def _round_trips(s: str) -> bool:
    parsed = parse_yaml_block(f"k: {s}\n")
    return parsed.data == {"k": s}


def scalar(value: Any, *, in_flow: bool) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument("a field value must be a finite number")
        return repr(value)
    if isinstance(value, str):
        plain = (
            value
            and value == value.strip()
            and "\n" not in value
            and not (in_flow and _FLOW_UNSAFE & set(value))
            and _round_trips(value)
        )
        return value if plain else json.dumps(value, ensure_ascii=False)
    return flow(value)


def _key_text(key: str) -> str:
    return key if _PLAIN_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def flow(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidArgument("keys inside a field value must be strings")
            items.append(f"{_key_text(k)}: {flow(v)}")
        return "{" + ", ".join(items) + "}"
    if isinstance(value, str | int | float | bool) or value is None:
        return scalar(value, in_flow=True)
    raise InvalidArgument(f"a field value cannot be a {type(value).__name__}")


def _value_lines(key: str, value: Any, old: Sequence[str], nl: str) -> list[str]:
    """``key: value`` as lines; a list that was written as a block list stays one."""
    if isinstance(value, list | tuple) and value and len(old) > 1:
        first = _strip_nl(old[0]).rstrip()
        item = _BLOCK_ITEM.match(_strip_nl(old[1]))
        if (
            first.endswith(":")
            and item is not None
            and all(not isinstance(v, list | tuple | Mapping) for v in value)
        ):
            indent = item.group(1)
            head = f"{_key_text(key)}:{nl}"
            return [head] + [f"{indent}- {scalar(v, in_flow=False)}{nl}" for v in value]
    rendered = (
        scalar(value, in_flow=False)
        if not isinstance(value, list | tuple | Mapping)
        else flow(value)
    )
    return [f"{_key_text(key)}: {rendered}{nl}"]


def _check(block: Block, expected: dict[str, Any]) -> None:
    if mapping_of(block) != expected:
        raise InvalidArgument(
            "the frontmatter is laid out in a way these field edits cannot change safely; "
            "edit the note whole with vault_write"
        )


def set_fields(block: Block, fields: Mapping[str, Any], nl: str) -> None:
    expected = mapping_of(block) if not block.created else {}
    for key, value in fields.items():
        span = extent(block.lines, key)
        if span is None:
            block.lines.append(_value_lines(key, value, [], nl)[0])
        else:
            start, stop = span
            block.lines[start:stop] = _value_lines(key, value, block.lines[start:stop], nl)
        expected[key] = list(value) if isinstance(value, tuple) else value
    _check(block, expected)


def remove_fields(block: Block, keys: Sequence[str]) -> None:
    if block.created:
        return
    expected = mapping_of(block)
    for key in keys:
        span = extent(block.lines, key)
        if span is not None:
            del block.lines[span[0] : span[1]]
        expected.pop(key, None)
    _check(block, expected)


def tags_of(block: Block) -> list[str]:
    value = None if block.created else mapping_of(block).get("tags")
    if value is None:
        return []
    if isinstance(value, str):
        return value.replace(",", " ").split()
    if isinstance(value, list):
        return [str(v) for v in value]
    raise InvalidArgument("the frontmatter's tags are neither a list nor a string")
