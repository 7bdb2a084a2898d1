"""Snippets: the window of a note's original text where the query's words are densest.
Pure: no I/O.

SQLite's ``snippet()`` would need a second full-text match over every hit of the query (on
SQLite 3.40 a ``MATCH`` ignores a rowid list), which costs as much as the search itself.
Here the page's bodies are fetched by rowid and scanned in Python: a word matches a query
term when, lower-cased and folded, it starts with the term's stem-ish head (the term less a
few trailing letters), so ``verification`` also marks ``verifications``. Folding strips
diacritics letter for letter (``Nováková`` → ``novakova``), so offsets stay the original's
and every search is a ``str.find``; the ASCII spellings of ``å ø æ ß œ þ`` are matched by
variants of the head (``kjaer`` → ``kjær``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from hoard.core.fold import ONE_LETTER_FOLDS, TWO_LETTER_FOLDS, fold_variants, needs_fold
from hoard.core.segment import has_segmented

_WORD = re.compile(r"\w+")
ELLIPSIS = "…"


def _without_marks(s: str) -> str:
    """``s`` decomposed (NFKD) with its combining marks dropped: ``Dvořák`` → ``Dvorak``."""
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _fold(word: str) -> list[str]:
    low = word.lower()
    out = [low]
    if not low.isascii():
        out.append(_without_marks(low))
        if needs_fold(low):
            out.extend(fold_variants(low))
    return out


def head(term: str) -> str:
    """The part of a query term a matching word must start with."""
    term = term.lower()
    if len(term) <= 4 or has_segmented(term):
        return term
    return term[: max(4, len(term) - 3)]


def best_window(text: str, terms: Sequence[str], width: int) -> str:
    """The ``width``-character stretch of ``text`` holding the most distinct query terms
    (then the most matches), cut at word boundaries; the start of the text when no word
    matches. White space is collapsed."""
    heads = [h for h in dict.fromkeys(head(t) for t in terms if t) if h]
    hits = _find(text, heads) if heads else []  # (start, end, term index)
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


def match_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Where words of ``text`` match the query terms, by the snippet's own rule, as sorted
    non-overlapping ``(start, end)`` offsets (the web app highlights them)."""
    heads = [h for h in dict.fromkeys(head(t) for t in terms if t) if h]
    spans: list[tuple[int, int]] = []
    for start, end, _ in _find(text, heads) if heads else []:
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


@functools.cache
def _strip_chars() -> dict[str, str]:
    """Each lower-case letter that folds to one other letter (``á`` → ``a``, ``ø`` → ``o``),
    so that folding keeps every offset; letters that fold to two (``æ``, ``ß``, ``þ``) stay.
    Built on first use (a few ms), so a command that shows no snippet does not pay."""
    table: dict[str, str] = {}
    ranges = (range(0xC0, 0x250), range(0x370, 0x530), range(0x1E00, 0x2000))
    for ch in (chr(cp) for r in ranges for cp in r):
        base = _without_marks(ch)
        if ch.islower() and len(base) == 1 and base != ch and len(base.lower()) == 1:
            table[ch] = base.lower()
    table.update(ONE_LETTER_FOLDS)
    return table


@functools.cache
def _strippable() -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(ch) for ch in sorted(_strip_chars())) + "]")


def _strip(low: str) -> str:
    """Lower-case ``low`` with every letter of the strip table replaced; same length. A
    regular expression visits only those letters: ``str.translate`` with a table this size
    costs about 140 ns a character on text that is not all ASCII."""
    chars = _strip_chars()
    return _strippable().sub(lambda m: chars[m.group()], low) if not low.isascii() else low


@functools.cache
def _digraphs() -> tuple[tuple[str, str, str], ...]:
    """(an ASCII spelling, the letter it stands for, that letter once stripped)."""
    chars = _strip_chars()
    return tuple((two, ch, chars.get(ch, ch)) for ch, two in TWO_LETTER_FOLDS.items())


@functools.lru_cache(maxsize=1024)
def _forms(h: str, letters: frozenset[str]) -> tuple[str, ...]:
    """The strings that mark a word starting with head ``h`` in stripped text: the head
    stripped, its own fold variants (``århu`` → ``aarhu``) and, for each special letter the
    text holds (``letters``), the head with that letter's ASCII spelling replaced
    (``kjae`` → ``kjæ``)."""
    base = _strip(h)
    forms = dict.fromkeys([base, *(_strip(v) for v in fold_variants(h))])
    frontier = [base]
    for spelling, letter, stripped in _digraphs():
        if letter in letters:
            frontier += [f.replace(spelling, stripped) for f in frontier if spelling in f]
    forms.update(dict.fromkeys(frontier))
    return tuple(f for f in forms if f)


def _find(text: str, heads: list[str]) -> list[tuple[int, int, int]]:
    """Word starts matching a head, found with ``str.find`` on the lower-cased text with
    diacritics stripped letter for letter, so offsets are the original's (C speed: a 150 KB
    note takes a fraction of a millisecond, with or without diacritics)."""
    low = text.lower()
    if len(low) != len(text):  # a few characters change length when lower-cased
        return _find_folded(text, heads)
    if low.isascii():
        folded, letters = low, frozenset[str]()
    else:
        folded = _strip(low)
        letters = frozenset(ch for ch in TWO_LETTER_FOLDS if ch in low)
    hits: list[tuple[int, int, int]] = []
    for i, h in enumerate(heads):
        seen: set[int] = set()
        found = 0
        inner = has_segmented(h)  # a word of a space-less script, found anywhere in a run
        for form in _forms(h, letters):
            pos = folded.find(form)
            while pos != -1 and found < MAX_HITS_PER_TERM:
                if (inner or pos == 0 or not folded[pos - 1].isalnum()) and pos not in seen:
                    end = pos + len(form)
                    while not inner and end < len(folded) and _word_char(folded[end]):
                        end += 1
                    seen.add(pos)
                    hits.append((pos, end, i))
                    found += 1
                pos = folded.find(form, pos + 1)
    hits.sort()
    return hits


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _find_folded(text: str, heads: list[str]) -> list[tuple[int, int, int]]:
    """The slow path, for the rare text that changes length when lower-cased: word by
    word, bounded."""
    hits: list[tuple[int, int, int]] = []
    for m in _WORD.finditer(text[:MAX_FOLDED_SCAN]):
        forms = _fold(m.group(0))
        for i, h in enumerate(heads):
            if has_segmented(h):
                at = m.group(0).lower().find(h)
                if at != -1:
                    hits.append((m.start() + at, m.start() + at + len(h), i))
                    break
            elif any(f.startswith(h) for f in forms):
                hits.append((m.start(), m.end(), i))
                break
    return hits


MAX_FOLDED_SCAN = 64 * 1024


CUT_BACK = 24
"""How far back a window may start to begin at a word: text without spaces (Chinese,
Japanese, Thai) is cut where the match is near instead."""


def _cut(text: str, start: int, width: int) -> str:
    if start > 0:
        space = text.rfind(" ", 0, start)
        nl = text.rfind("\n", 0, start)
        back = max(space, nl)
        unspaced = start - back > CUT_BACK and has_segmented(text[max(back, 0) : start])
        start = back + 1 if back >= 0 and not unspaced else start
    piece = text[start : start + width + 40]
    collapsed = " ".join(piece.split())
    if len(collapsed) > width:
        cut = collapsed.rfind(" ", 0, width)
        collapsed = collapsed[: cut if cut > width // 2 else width].rstrip() + ELLIPSIS
    elif start + width + 40 < len(text):
        collapsed += ELLIPSIS
    return (ELLIPSIS if start > 0 else "") + collapsed
