"""Wikilinks: extraction from Markdown and the keys they resolve by. Pure: no I/O.

Forms: ``[[target]]``, ``[[target|alias]]``, ``[[target#heading]]``, ``![[embed]]``.
Links inside fenced code blocks and inline code are not links.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from hoard.core.choices import LinkResolution

_LINK = re.compile(r"(!?)\[\[([^\[\]\n]{1,500}?)\]\]")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


@dataclass(frozen=True, slots=True)
class WikiLink:
    target: str
    """As written, before ``#`` and ``|`` (``tech/hue-bridge``)."""
    heading: str | None
    alias: str | None
    embed: bool
    line: int
    """1-based line number in the note's text."""


def link_key(target: str) -> str:
    """The normalised key a link resolves by: NFC, lower case, no ``.md``, no leading ``/``."""
    key = unicodedata.normalize("NFC", target).strip().lower()
    while key.startswith(("./", "/")):
        key = key[2:] if key.startswith("./") else key[1:]
    if key.endswith(".md"):
        key = key[:-3]
    return key


def note_keys(path: str) -> tuple[str, str]:
    """``(path_key, stem_key)`` of a note path: what links to it look like."""
    pkey = link_key(path)
    return pkey, pkey.rpartition("/")[2]


def name_key(name: str) -> str:
    """The key an alias matches a link by: case- and diacritic-insensitive
    (``Café Ünïcode`` and ``cafe unicode`` are one key), spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


def extract_links(text: str) -> list[WikiLink]:
    out: list[WikiLink] = []
    in_fence: str | None = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            if in_fence is None:
                in_fence = marker
            elif in_fence == marker:
                in_fence = None
            continue
        if in_fence is not None or "[[" not in line:
            continue
        if "`" in line:
            line = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for m in _LINK.finditer(line):
            inner = m.group(2)
            target, _, alias = inner.partition("|")
            target, _, heading = target.partition("#")
            target = target.strip()
            if not target:  # [[#heading]] points into the same note
                continue
            out.append(
                WikiLink(
                    target=target,
                    heading=heading.strip() or None,
                    alias=alias.strip() or None,
                    embed=m.group(1) == "!",
                    line=lineno,
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a link goes and which way it got there; ``path`` is ``None`` when the link is
    broken, and then ``ambiguous`` lists the notes that share the alias it names."""

    path: str | None
    by: LinkResolution | None = None
    ambiguous: tuple[str, ...] = ()


def resolve_key(
    key: str,
    src_folder: str,
    path_hits: list[str],
    stem_hits: list[str],
    alias_hits: list[str],
) -> Resolution:
    """Resolve one link key: by path or file name first (:func:`pick_target`), then by a
    frontmatter alias of exactly one note (``alias_hits``: the notes with an alias whose
    :func:`name_key` equals the link's). An alias two notes share resolves to neither: the
    link is ambiguous, never a guess."""
    found = pick_target(key, src_folder, path_hits, stem_hits)
    if found is not None:
        return Resolution(found, "path" if "/" in key else "name")
    unique = tuple(sorted(set(alias_hits)))
    if len(unique) == 1:
        return Resolution(unique[0], "alias")
    return Resolution(None, None, unique)


def pick_target(
    key: str, src_folder: str, path_hits: list[str], stem_hits: list[str]
) -> str | None:
    """Resolve one link key to a note path, given the notes whose path key equals it (or
    equals it relative to the linking note's folder) and those whose stem key equals its
    last component. A path match wins; among stem matches the linking note's own folder
    wins, then the shortest path, then the alphabetically first."""
    if path_hits:
        return sorted(path_hits, key=lambda p: (len(p), p))[0]
    if "/" in key:
        suffix = "/" + key
        tail = [p for p in stem_hits if link_key(p).endswith(suffix)]
        if not tail:
            return None
        stem_hits = tail
    if not stem_hits:
        return None
    return sorted(stem_hits, key=lambda p: (p.rpartition("/")[0] != src_folder, len(p), p))[0]
