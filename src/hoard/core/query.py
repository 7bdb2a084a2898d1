"""Translating a person's query text into a safe FTS5 expression. Pure: no I/O.

Natural mode never produces a syntax error: the text is cut into chunks at white space, each
chunk keeps only its letter/digit runs, and every chunk becomes a quoted phrase (so ``e-mail``
is the phrase ``"e mail"``, plus the words ``"e"`` and ``"mail"``; ``C++`` is ``"c"``;
``AND`` is the word "and"). Chunks that are
stopwords are dropped unless nothing else is left. Each chunk's alternatives (prefix form for
terms of ``prefix_min_length``+ characters, Danish fold variants, typo corrections) are
OR-ed inside its group, and the groups are OR-ed: BM25 ranks notes that match more groups
higher.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hoard.core.fold import fold_variants
from hoard.core.segment import RunQuery, has_segmented, query_runs

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_WORD = re.compile(rf"[^\W_](?:[^\W_]|[{_MARKS}])*")
MAX_QUERY_CHUNKS = 32
MAX_TERM_CHARS = 64
SEGMENTED_COLUMNS = "{title_seg body_seg}"
"""The FTS5 column filter of the side columns holding n-grams of space-less scripts."""


@dataclass(slots=True)
class Chunk:
    tokens: list[str]
    """Lower-cased letter/digit runs of one white-space chunk."""
    alternatives: list[str] = field(default_factory=list)
    """Extra single-token spellings (fold variants) for this chunk."""
    runs: list[RunQuery] = field(default_factory=list)
    """Its runs of space-less scripts (Han, Kana, Hangul, Thai...), searched as n-grams in
    the side columns (:mod:`hoard.core.segment`); never typo-corrected or completed."""

    @property
    def single(self) -> str | None:
        return self.tokens[0] if len(self.tokens) == 1 else None


def quote(s: str) -> str:
    """``s`` as one FTS5 string (a word or a phrase)."""
    return '"' + s.replace('"', '""') + '"'


def words_of(text: str) -> list[str]:
    """The letter/digit runs of ``text``, as written."""
    return list(_WORD.findall(text))


def parse_natural(text: str, stopwords: frozenset[str]) -> list[Chunk]:
    """Cut query text into chunks. Never fails; may return ``[]``."""
    text = unicodedata.normalize("NFC", text or "")
    chunks: list[Chunk] = []
    for raw in text.split():
        tokens = [t.lower()[:MAX_TERM_CHARS] for t in _WORD.findall(raw)]
        if not tokens:
            continue
        chunk = Chunk(tokens, runs=query_runs(raw))
        if len(tokens) == 1:
            chunk.alternatives = fold_variants(tokens[0])
        chunks.append(chunk)
        if len(chunks) >= MAX_QUERY_CHUNKS:
            break
    kept = [c for c in chunks if " ".join(c.tokens) not in stopwords]
    kept = kept or chunks
    # A chunk of several runs ("two-dimensional", "e-mail") also counts its words one by one:
    # the phrase ranks notes that have it higher, the words find the rest (measured: +0.012
    # nDCG@10 on Cranfield, +0.010 on CACM).
    seen = {c.tokens[0] for c in kept if len(c.tokens) == 1}
    extra: list[Chunk] = []
    for c in kept:
        if len(c.tokens) > 1:
            for t in c.tokens:
                if t not in seen and t not in stopwords and not has_segmented(t):
                    seen.add(t)
                    extra.append(Chunk([t], fold_variants(t)))
    return (kept + extra)[: MAX_QUERY_CHUNKS * 2]


_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}\"]")


def adjacent_pairs(text: str, stopwords: frozenset[str], limit: int = 16) -> list[str]:
    """Pairs of words next to each other in the query (``"time sharing"``, ``"sharing
    system"``), not across punctuation and not involving a stopword: notes holding them
    as phrases are about what the query is about more often than notes that hold the words
    apart. Pure; at most ``limit`` distinct pairs, in query order."""
    text = unicodedata.normalize("NFC", text or "")
    out: list[str] = []
    for clause in _CLAUSE_BREAK.split(text):
        words = [w.lower()[:MAX_TERM_CHARS] for w in _WORD.findall(clause)]
        for a, b in itertools.pairwise(words):
            if a in stopwords or b in stopwords:
                continue
            pair = f"{a} {b}"
            if pair not in out:
                out.append(pair)
                if len(out) >= limit:
                    return out
    return out


def is_prefix_eligible(term: str, min_length: int) -> bool:
    return len(term) >= min_length and not term.isdigit()


def build_groups(
    chunks: Sequence[Chunk],
    prefix_min_length: int,
    extra: Mapping[int, Sequence[str]] | None = None,
) -> list[str]:
    """One FTS5 group per chunk, in chunk order; their OR is the query's expression.
    ``extra`` maps a chunk index to more alternatives (typo corrections); those are matched
    exactly, not as prefixes."""
    groups: list[str] = []
    for i, chunk in enumerate(chunks):
        alts: list[str] = [quote(" ".join(chunk.tokens))]
        single = chunk.single
        if single is not None and is_prefix_eligible(single, prefix_min_length):
            alts.append(quote(single) + "*")
        for alt in chunk.alternatives:
            alts.append(quote(alt))
            if is_prefix_eligible(alt, prefix_min_length):
                alts.append(quote(alt) + "*")
        if extra:
            alts.extend(quote(x) for x in extra.get(i, ()))
        alts.extend(f"{SEGMENTED_COLUMNS} : {r.expr}" for r in chunk.runs)
        groups.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(alts) + ")")
    return groups


def within_budget(counts: Sequence[int], budget: int) -> list[int]:
    """Which groups of a query to search, given how many notes each matches: all of them
    when together they match at most ``budget`` notes, else the rarest first while the
    running total stays within ``budget`` (always at least the rarest one that matches
    anything: a group matching nothing costs nothing and finds nothing). The words left
    out match so many notes that BM25 gives them little weight, yet scoring every note
    that holds them is nearly all of a query's time. Returns indices in query order;
    ``budget`` 0 keeps everything."""
    if budget <= 0 or sum(counts) <= budget:
        return list(range(len(counts)))
    kept: list[int] = []
    total = 0
    for i in sorted(range(len(counts)), key=lambda i: (counts[i], i)):
        if total > 0 and total + counts[i] > budget:
            break
        kept.append(i)
        total += counts[i]
    return sorted(kept)


def max_edits(term: str, min_length: int, two_edits_length: int) -> int:
    """Typo budget scaled to length: none below ``min_length``, one, two from
    ``two_edits_length`` (never below ``min_length``). Numbers never get typo tolerance."""
    if any(ch.isdigit() for ch in term) or len(term) < min_length:
        return 0
    return 2 if len(term) >= two_edits_length else 1


def typeahead_expression(chunks: Sequence[Chunk], segmented: bool) -> str:
    """What a person typing means: every word whole, the last one a prefix from its first
    letter (``home ass`` → ``"home" AND "ass"*``), all of them required. ``segmented`` adds
    the side columns' n-grams for runs of space-less scripts (the ``titles`` table has
    none)."""
    groups: list[str] = []
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        star = "*" if last else ""
        alts = [quote(" ".join(chunk.tokens)) + star]
        alts.extend(quote(alt) + star for alt in chunk.alternatives)
        if segmented:
            alts.extend(f"{SEGMENTED_COLUMNS} : {r.expr}" for r in chunk.runs)
        groups.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(alts) + ")")
    return " AND ".join(groups)
