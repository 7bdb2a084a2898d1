"""Diacritic folding beyond what SQLite's ``unicode61 remove_diacritics 2`` does. Pure.

SQLite already folds decomposable letters (``ú`` → ``u``, ``å`` → ``a``). It leaves letters
that are not composed from a base and a mark (``ø``, ``æ``, ``ß``, ``ł``...). Danish writes
``å ø æ`` as ``aa oe ae`` when they are not to hand, so hoard indexes those spellings too
(an extra column) and adds them to queries: ``Århus`` meets ``Aarhus`` both ways.
"""

from __future__ import annotations

_TRANSLIT = str.maketrans(
    {
        "å": "aa",
        "Å": "aa",
        "ø": "oe",
        "Ø": "oe",
        "æ": "ae",
        "Æ": "ae",
        "ß": "ss",
        "œ": "oe",
        "Œ": "oe",
        "ł": "l",
        "Ł": "l",
        "đ": "d",
        "Đ": "d",
        "þ": "th",
        "Þ": "th",
        "ð": "d",
        "Ð": "d",
        "ħ": "h",
        "ı": "i",
    }
)
_PLAIN = str.maketrans({"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ß": "ss"})
_SPECIAL = frozenset("åÅøØæÆßœŒłŁđĐþÞðÐħı")

ONE_LETTER_FOLDS = {
    chr(k): v
    for table in (_PLAIN, _TRANSLIT)
    for k, v in table.items()
    if isinstance(v, str) and len(v) == 1 and chr(k).islower()
}
"""Lower-case special letters that fold to one letter: ``ø`` → ``o``, ``ł`` → ``l``..."""
TWO_LETTER_FOLDS = {
    chr(k): v
    for k, v in _TRANSLIT.items()
    if isinstance(v, str) and len(v) == 2 and chr(k).islower()
}
"""Lower-case special letters and the two ASCII letters written for them: ``å`` → ``aa``..."""


def needs_fold(word: str) -> bool:
    return not word.isascii() and any(ch in _SPECIAL for ch in word)


def fold_variants(word: str) -> list[str]:
    """Other spellings of ``word`` a person may type: ``smørrebrød`` → ``smoerrebroed``,
    ``smorrebrod``. Empty when SQLite's own folding already covers the word."""
    if not needs_fold(word):
        return []
    low = word.lower()
    out = []
    for table in (_TRANSLIT, _PLAIN):
        v = low.translate(table)
        if v != low and v not in out:
            out.append(v)
    return out


def alt_text(words: list[str]) -> str:
    """The extra indexed text holding every fold variant of the given words."""
    seen: set[str] = set()
    out: list[str] = []
    for w in words:
        if w in seen:
            continue
        seen.add(w)
        out.extend(fold_variants(w))
    return " ".join(out)
