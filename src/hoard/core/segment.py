"""Words in scripts written without spaces, as character n-grams. Pure: no I/O.

SQLite's ``unicode61`` keeps a run of Han, Kana or Hangul characters as one token, so a word
inside the run (``数据库`` in ``数据库备份``) can never match; Thai, Lao, Khmer and Burmese
runs are cut at every combining vowel or tone mark instead, at places that are not word
boundaries either. Beside the plain columns (never instead of them) the index holds each such
run again as overlapping character n-grams, one token per start position, cut short at the
run's end: ``数据库备份`` → ``数据 据库 库备 备份 份``. A query's runs are cut the same way
and searched as a phrase of their n-grams, which matches exactly where the run occurs inside a
longer one; a run shorter than the n-gram is a prefix of the n-grams (``数`` → ``"数"*``,
which the shortened last n-gram of each run makes complete).

- Han, Hiragana, Katakana and Hangul: bigrams (most words are two characters).
- Thai, Lao, Khmer and Burmese: trigrams of base letters, combining marks dropped on both
  sides (on the tldr Thai set bigrams and trigrams both reach success@10 1.000, MRR@10 0.731;
  trigrams did better in a larger earlier measurement, 0.79).

Text without any of these scripts gives an empty string: its side columns stay empty and
its scores are exactly those of the plain columns.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_CJK = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # Hiragana, Katakana (with ー)
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # Han extension A
    "\u4e00-\u9fff"  # Han
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # Han compatibility
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003134f"  # Han extensions B-G
)
_SEA = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_SEA_RUN = re.compile(f"[{_SEA}]+")
_ANY = re.compile(f"[{_CJK}{_SEA}]")

CJK_N = 2
SEA_N = 3


def has_segmented(text: str) -> bool:
    """Does ``text`` hold any character of a script written without spaces?"""
    return not text.isascii() and _ANY.search(text) is not None


def _sea_letters(run: str) -> str:
    """A Thai-family run less its combining marks (the tokenizer splits at them)."""
    return "".join(c for c in run if unicodedata.category(c) not in ("Mn", "Mc"))


def _runs(text: str) -> list[tuple[str, str, int]]:
    """Each run of a space-less script in ``text``, in order: as written, the letters its
    n-grams are cut from, and the n-gram size."""
    text = unicodedata.normalize("NFC", text)
    found = [(m.start(), m.group(), m.group(), CJK_N) for m in _CJK_RUN.finditer(text)]
    found += [
        (m.start(), m.group(), _sea_letters(m.group()), SEA_N) for m in _SEA_RUN.finditer(text)
    ]
    found.sort()
    return [(run, letters, n) for _, run, letters, n in found if letters]


def grams(run: str, n: int) -> list[str]:
    """One n-gram per start position of ``run``, the last ones cut short at its end."""
    return [run[i : i + n] for i in range(len(run))]


def segmented_text(text: str) -> str:
    """The side-column text of ``text``: every run's n-grams, space-separated; ``""`` when
    it holds none of these scripts (then nothing else is paid)."""
    if not has_segmented(text):
        return ""
    return " ".join(g for _, run, n in _runs(text.lower()) for g in grams(run, n))


_TOKEN = re.compile(r"[^\W_]+")
_SEGMENTED_ANY = re.compile(f"[{_CJK}{_SEA}]+")


def glued_text(text: str) -> str:
    """Words of other scripts written against a run without a space (``SQLite数据库``): the
    tokenizer keeps them inside one token with the run, so they are indexed again on their
    own (``sqlite``); ``""`` when there are none."""
    if not has_segmented(text):
        return ""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        token = m.group()
        if _ANY.search(token) is None:
            continue
        out.extend(p for p in _SEGMENTED_ANY.split(token) if p)
    return " ".join(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class RunQuery:
    """How one run of a query is searched in the side columns."""

    run: str
    """The run as written (what a snippet looks for)."""
    expr: str
    """Its FTS5 expression, without a column filter: a phrase of its n-grams, or a prefix
    when it is shorter than one n-gram."""


def _quote(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def query_runs(token: str) -> list[RunQuery]:
    """The runs of a query token and their side-column expressions; ``[]`` for a token
    without these scripts."""
    if not has_segmented(token):
        return []
    out: list[RunQuery] = []
    for written, run, n in _runs(token.lower()):
        if len(run) < n:
            out.append(RunQuery(written, _quote(run) + "*"))
        else:
            full = [run[i : i + n] for i in range(len(run) - n + 1)]
            out.append(RunQuery(written, _quote(" ".join(full))))
    return out
