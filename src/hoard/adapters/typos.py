"""Typo tolerance: the index vocabulary and edit-distance lookups over it.

Python's ``sqlite3`` cannot load ``spellfix1``, so hoard keeps the FTS5 vocabulary (stems, as
the ``porter`` tokenizer wrote them) in memory, bucketed by length, and asks ``rapidfuzz``
for terms within an OSA distance (a transposition is one edit). Query words are stemmed by
SQLite's own tokenizer (:class:`Stemmer`) so both sides speak the same stems.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract

from hoard.adapters.index import TOKENIZER


class Stemmer:
    """SQLite's porter tokenizer, used from Python: the exact stems the index holds."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE q USING fts5(x, tokenize='{TOKENIZER}')")
        self._conn.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')")
        self._lock = threading.Lock()
        self._cache: dict[str, str] = {}

    def stem(self, word: str) -> str:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        with self._lock:
            self._conn.execute("DELETE FROM q")
            self._conn.execute("INSERT INTO q(x) VALUES(?)", (word,))
            rows = self._conn.execute("SELECT term FROM qv ORDER BY offset").fetchall()
        stem = rows[0][0] if len(rows) == 1 else word
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[word] = stem
        return stem


class Vocabulary:
    """Alphabetic index terms by length, with document counts; reloaded when stale."""

    MIN_RELOAD_S = 2.0
    """A changed index reloads the vocabulary at most this often."""

    def __init__(self, load: Callable[[], list[tuple[str, int]]]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._by_len: dict[int, list[str]] = {}
        self._df: dict[str, int] = {}
        self._loaded_at = 0.0
        self._token: object = None

    def invalidate(self) -> None:
        self._loaded_at = 0.0

    def _ensure(self, token: object) -> None:
        now = time.monotonic()
        if self._by_len and (token == self._token or now - self._loaded_at < self.MIN_RELOAD_S):
            return
        by_len: dict[int, list[str]] = {}
        df: dict[str, int] = {}
        for term, count in self._load():
            if 3 <= len(term) <= 40 and term.isalpha():
                by_len.setdefault(len(term), []).append(term)
                df[term] = count
        self._by_len, self._df = by_len, df
        self._loaded_at = now
        self._token = token

    def corrections(self, stem: str, edits: int, token: object, most: int = 3) -> list[str]:
        """Index terms within ``edits`` of ``stem`` (not ``stem`` itself), best first:
        fewest edits, then most documents."""
        if edits <= 0:
            return []
        with self._lock:
            self._ensure(token)
            pool: list[str] = []
            for n in range(len(stem) - edits, len(stem) + edits + 1):
                pool.extend(self._by_len.get(n, ()))
            df = self._df
        found = extract(stem, pool, scorer=OSA.distance, score_cutoff=edits, limit=None)
        ranked = sorted(
            ((term, dist) for term, dist, _ in found if term != stem),
            key=lambda td: (td[1], -df.get(td[0], 0), td[0]),
        )
        return [t for t, _ in ranked[:most]]
