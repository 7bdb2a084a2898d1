"""The note model: what hoard derives from a note's bytes. Pure: no I/O."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from hoard.core.frontmatter import FrontmatterError, parse_yaml_block, split_frontmatter
from hoard.core.links import WikiLink, extract_links
from hoard.core.paths import stem_of
from hoard.core.tags import inline_tags

_H1 = re.compile(r"#[ \t]+(\S.*?)[ \t#]*")
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")


_TAGS_ONLY = re.compile(r"(?:#[^\s#]+[ \t]*)+")
_EMBED_ONLY = re.compile(r"!\[\[[^\]]*\]\][ \t]*")


def first_h1(body: str) -> str | None:
    """The note's level-1 heading when it opens the body: before it only blank lines,
    fenced code (a shell comment is not a title), tag lines (``#idea``) and embeds. A
    level-1 heading after prose heads a section (``# Process``), not the note."""
    fence: str | None = None
    for line in body.split("\n"):
        f = _FENCE.match(line)
        if f:
            fence = None if fence == f.group(1) else (fence or f.group(1))
            continue
        text = line.strip()
        if fence is not None or not text:
            continue
        if line.startswith("#"):
            m = _H1.fullmatch(line.rstrip("\r"))
            if m:
                return m.group(1).strip()
            if _TAGS_ONLY.fullmatch(text) or text.startswith("##"):
                continue
        elif _EMBED_ONLY.fullmatch(text):
            continue
        return None
    return None


def revision_of(raw: bytes) -> str:
    """A revision: the lowercase hex SHA-256 of the exact bytes."""
    return hashlib.sha256(raw).hexdigest()


@dataclass(slots=True)
class NoteDoc:
    path: str
    revision: str
    title: str
    aliases: list[str]
    tags: list[str]
    body: str
    frontmatter: dict[str, Any] | None
    frontmatter_text: str
    links: list[WikiLink]
    problems: list[FrontmatterError] = field(default_factory=list)
    """Why parsing was partial (bad UTF-8, bad YAML...): indexed anyway, reported by check."""
    inline_tags: list[str] = field(default_factory=list)
    """``#tags`` written in the body (``tags`` holds the frontmatter's)."""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str | int | float) and str(v).strip()]
    return []


def parse_note(path: str, raw: bytes, title_keys: tuple[str, ...] = ("aliases",)) -> NoteDoc:
    """Derive everything hoard indexes from a note. Never raises on bad content."""
    problems: list[FrontmatterError] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(FrontmatterError("utf8", f"not valid UTF-8 (byte {exc.start})"))
        text = raw.decode("utf-8", errors="replace")
    split = split_frontmatter(text)
    data: dict[str, Any] | None = None
    if split.has_block:
        parsed = parse_yaml_block(split.yaml_text)
        if parsed.error is not None:
            problems.append(parsed.error)
        data = parsed.data
    fm = data or {}
    body = split.body
    title = ""
    t = fm.get("title")
    if isinstance(t, str | int | float) and str(t).strip():
        title = str(t).strip()
    if not title:
        title = first_h1(body) or ""
    if not title:
        title = stem_of(path)
    aliases: list[str] = []
    for key in title_keys:
        aliases.extend(_strings(fm.get(key)))
    tags_value = fm.get("tags")
    tags = (
        _strings(tags_value)
        if not isinstance(tags_value, str)
        else tags_value.replace(",", " ").split()
    )
    return NoteDoc(
        path=path,
        revision=revision_of(raw),
        title=title,
        aliases=aliases,
        tags=tags,
        body=body,
        frontmatter=data,
        frontmatter_text=split.yaml_text,
        links=extract_links(text),
        problems=problems,
        inline_tags=inline_tags(body),
    )
