"""Snippets: the window of a note's original text where the query's words are densest.
Pure: no I/O.

SQLite's ``snippet()`` would need a second full-text match over every hit of the query (on
SQLite 3.40 a ``MATCH`` ignores a rowid list), which costs as much as the search itself.
Here the page's bodies are fetched by rowid and scanned in Python: a word matches a query
term when, lower-cased and folded, it starts with the term's stem-ish head (the term less a
few trailing letters), so ``verification`` also marks ``verifications``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from hoard.core.fold import fold_variants, needs_fold

_WORD = re.compile(r"\w+")
ELLIPSIS = "…"


def _fold(word: str) -> list[str]:
    low = word.lower()
    out = [low]
    if not low.isascii():
        plain = "".join(
            c for c in unicodedata.normalize("NFKD", low) if not unicodedata.combining(c)
        )
        out.append(plain)
        if needs_fold(low):
            out.extend(fold_variants(low))
    return out


def head(term: str) -> str:
    """The part of a query term a matching word must start with."""
    term = term.lower()
    if len(term) <= 4:
        return term
    return term[: max(4, len(term) - 3)]


def best_window(text: str, terms: Sequence[str], width: int) -> str:
    """The ``width``-character stretch of ``text`` holding the most distinct query terms
    (then the most matches), cut at word boundaries; the start of the text when no word
    matches. White space is collapsed."""
    heads = [h for h in dict.fromkeys(head(t) for t in terms if t) if h]
    hits: list[tuple[int, int, int]] = []  # (start, end, term index)
    if heads:
        hits = _find_plain(text, heads)
        if not hits and not text.isascii():
            hits = _find_folded(text, heads)
    if not hits:
        return _cut(text, 0, width)
    best = (0, 0, 0)  # (distinct, count, -start index)
    best_start, span_end = hits[0][0], hits[0][1]
    j = 0
    for i in range(len(hits)):
        while hits[i][1] - hits[j][0] > width:
            j += 1
        window = hits[j : i + 1]
        score = (len({h[2] for h in window}), len(window), -j)
        if score > best:
            best = score
            best_start = hits[j][0]
            span_end = hits[i][1]
    # centre the matched stretch in the window
    slack = max(0, width - (span_end - best_start))
    start = max(0, best_start - slack // 3)
    return _cut(text, start, width)


MAX_HITS_PER_TERM = 200


def _find_plain(text: str, heads: list[str]) -> list[tuple[int, int, int]]:
    """Word starts matching a head, found with ``str.find`` on the lower-cased text (C speed:
    a 150 KB note takes a fraction of a millisecond)."""
    low = text.lower()
    if len(low) != len(text):  # a few characters change length when lower-cased
        return []
    hits: list[tuple[int, int, int]] = []
    for i, h in enumerate(heads):
        pos = low.find(h)
        found = 0
        while pos != -1 and found < MAX_HITS_PER_TERM:
            if pos == 0 or not low[pos - 1].isalnum():
                end = pos + len(h)
                while end < len(low) and (low[end].isalnum() or low[end] == "_"):
                    end += 1
                hits.append((pos, end, i))
                found += 1
            pos = low.find(h, pos + 1)
    hits.sort()
    return hits


def _find_folded(text: str, heads: list[str]) -> list[tuple[int, int, int]]:
    """The slow path, for notes whose matching words carry diacritics or fold variants."""
    hits: list[tuple[int, int, int]] = []
    for m in _WORD.finditer(text[:MAX_FOLDED_SCAN]):
        forms = _fold(m.group(0))
        for i, h in enumerate(heads):
            if any(f.startswith(h) for f in forms):
                hits.append((m.start(), m.end(), i))
                break
    return hits


MAX_FOLDED_SCAN = 64 * 1024


def _cut(text: str, start: int, width: int) -> str:
    if start > 0:
        space = text.rfind(" ", 0, start)
        nl = text.rfind("\n", 0, start)
        start = max(space, nl) + 1 if max(space, nl) >= 0 else start
    piece = text[start : start + width + 40]
    collapsed = " ".join(piece.split())
    if len(collapsed) > width:
        cut = collapsed.rfind(" ", 0, width)
        collapsed = collapsed[: cut if cut > width // 2 else width].rstrip() + ELLIPSIS
    elif start + width + 40 < len(text):
        collapsed += ELLIPSIS
    return (ELLIPSIS if start > 0 else "") + collapsed
