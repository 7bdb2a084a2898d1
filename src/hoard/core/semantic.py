"""The pure parts of semantic search: what text of a note is embedded, and how a lexical and a
semantic score list are blended into one ranking. No I/O, no numpy."""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

_WIKILINK = re.compile(r"!?\[\[([^\[\]\n|#]*)(?:#[^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]")
_SPACE = re.compile(r"[ \t]+")


def link_text(m: re.Match[str]) -> str:
    """A wikilink as a reader sees it: its alias, else its target's last path part."""
    alias = (m.group(2) or "").strip()
    if alias:
        return alias
    target = m.group(1).strip()
    return target.rsplit("/", 1)[-1].removesuffix(".md")


def embedding_text(title: str, body: str, chars: int) -> str:
    """What a note's vector is made of: its title, then the start of its body (already
    without frontmatter), wikilinks reduced to their text, at most ``chars`` characters."""
    body = _WIKILINK.sub(link_text, body[: chars * 2])
    text = f"{title.strip()}\n{_SPACE.sub(' ', body).strip()}".strip()
    return text[:chars]


def min_max(scores: Mapping[K, float]) -> dict[K, float]:
    """Scores scaled to 0..1 over their own list (all 1 when they are all equal)."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi <= lo:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def blend(lexical: Mapping[K, float], semantic: Mapping[K, float], weight: float) -> dict[K, float]:
    """The convex blend over the union of both lists: ``weight`` x lexical + (1 - weight) x
    semantic, each min-max normalised over its own list, a note absent from a list
    scoring 0 there (the rule measured on the judged sets: it lifts questions and keeps titles)."""
    lex, sem = min_max(lexical), min_max(semantic)
    return {
        k: weight * lex.get(k, 0.0) + (1 - weight) * sem.get(k, 0.0)
        for k in lex.keys() | sem.keys()
    }
