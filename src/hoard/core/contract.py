"""The frontmatter contract as one pure function over a note's bytes.

:func:`check_contract` returns *every* violation, each with the field, a rule name and a
sentence; an empty list means the note passes. Rule names are stable (tests and callers match
on them): ``utf8``, ``bom``, ``final_newline``, ``frontmatter_missing``, ``frontmatter_size``,
the YAML rules of :mod:`hoard.core.frontmatter` (``yaml_syntax``, ``duplicate_key``,
``yaml_anchor``, ``yaml_alias``, ``merge_key``, ``custom_tag``, ``yaml_depth``,
``yaml_too_complex``, ``not_a_mapping``), ``required``, ``non_empty_string``, ``tags_type``,
``tags_count``, ``tag_format``, ``tags_distinct``, ``date_format``, ``date_invalid``, and
``related_block`` (judged by the write path, which knows the prior revision).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from hoard.core.config import ContractConfig
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter


@dataclass(frozen=True, slots=True)
class Violation:
    field: str
    rule: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "rule": self.rule, "message": self.message}


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def check_contract(raw: bytes, contract: ContractConfig) -> list[Violation]:
    out: list[Violation] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        out.append(Violation("file", "utf8", f"not valid UTF-8 (byte {exc.start})"))
        text = raw.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        out.append(Violation("file", "bom", "starts with a byte-order mark; save as plain UTF-8"))
    if not text.endswith("\n"):
        out.append(Violation("file", "final_newline", "must end with exactly one newline"))
    elif text[:-1].removesuffix("\r").endswith("\n"):
        out.append(
            Violation("file", "final_newline", "ends with blank lines; keep exactly one newline")
        )
    split = split_frontmatter(text)
    if not split.has_block:
        out.append(
            Violation(
                "frontmatter",
                "frontmatter_missing",
                "the note must start with a YAML frontmatter block between '---' lines",
            )
        )
        return out
    if split.block_bytes > contract.max_frontmatter_bytes:
        out.append(
            Violation(
                "frontmatter",
                "frontmatter_size",
                f"frontmatter is {split.block_bytes} bytes; the limit is "
                f"{contract.max_frontmatter_bytes}",
            )
        )
        return out
    parsed = parse_yaml_block(split.yaml_text)
    if parsed.error is not None or parsed.data is None:
        err = parsed.error
        assert err is not None
        out.append(Violation("frontmatter", err.rule, err.message))
        return out
    out.extend(check_fields(parsed.data, contract))
    return out


def check_fields(data: dict[str, Any], contract: ContractConfig) -> list[Violation]:
    out: list[Violation] = []
    for name in contract.required:
        if name not in data or data[name] is None:
            out.append(Violation(name, "required", f"'{name}' is required"))
    for name in contract.non_empty_strings:
        if name in data and data[name] is not None:
            v = data[name]
            if not isinstance(v, str) or not v.strip():
                out.append(
                    Violation(name, "non_empty_string", f"'{name}' must be a non-empty string")
                )
    if "tags" in data and data["tags"] is not None:
        out.extend(_check_tags(data["tags"], contract))
    for name in contract.date_fields:
        if name in data and data[name] is not None:
            out.extend(_check_date(name, data[name]))
    return out


def _check_tags(tags: Any, contract: ContractConfig) -> list[Violation]:
    if not isinstance(tags, list):
        return [Violation("tags", "tags_type", "'tags' must be a list")]
    out: list[Violation] = []
    if not contract.tags_min <= len(tags) <= contract.tags_max:
        out.append(
            Violation(
                "tags",
                "tags_count",
                f"'tags' has {len(tags)} entries; between {contract.tags_min} and "
                f"{contract.tags_max} are required",
            )
        )
    pattern = re.compile(contract.tag_pattern)
    for tag in tags:
        if not isinstance(tag, str) or not pattern.fullmatch(tag):
            out.append(
                Violation(
                    "tags",
                    "tag_format",
                    f"tag {tag!r} is not lowercase kebab-case ({contract.tag_pattern})",
                )
            )
    hashable = [t for t in tags if isinstance(t, str | int | float | bool)]
    if len(set(hashable)) != len(hashable):
        out.append(Violation("tags", "tags_distinct", "'tags' has duplicates"))
    return out


def _check_date(name: str, value: Any) -> list[Violation]:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return [Violation(name, "date_format", f"'{name}' must be a date written YYYY-MM-DD")]
    try:
        date.fromisoformat(value)
    except ValueError:
        return [Violation(name, "date_invalid", f"'{name}' {value} is not a real calendar date")]
    return []
