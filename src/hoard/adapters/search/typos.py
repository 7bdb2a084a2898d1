"""Typo tolerance: the vocabulary of words as written and edit-distance lookups over it.

Python's ``sqlite3`` cannot load ``spellfix1``. The index keeps a second, contentless FTS5
table (``words``: titles and bodies, no stemming, no positions) whose vocabulary is every word
as written; hoard loads it into memory bucketed by length and asks ``rapidfuzz`` for words
within an OSA distance (a transposition is one edit). Comparing words, not porter stems,
keeps the edit budget honest: ``elxphanxs`` is two edits from ``elephants``, but nowhere
near the stem ``eleph``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract

log = logging.getLogger("hoard.typos")


class Vocabulary:
    """Alphabetic index terms by length, with document counts. When the index changes, the
    words already loaded keep answering while a background thread reads the new ones (on
    the 250k generated vault a read takes about 2 s: too long to make a query wait for it
    after every write). Only the first load, when nothing is loaded yet, waits."""

    MIN_RELOAD_S = 2.0
    """A changed index reloads the vocabulary at most this often."""

    def __init__(self, load: Callable[[], list[tuple[str, int]]]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._by_len: dict[int, list[str]] = {}
        self._df: dict[str, int] = {}
        self._loaded_at = 0.0
        self._token: object = None
        self._reloading: threading.Thread | None = None

    def _ensure(self, token: object) -> None:
        """Called with the lock held."""
        now = time.monotonic()
        if self._by_len and (token == self._token or now - self._loaded_at < self.MIN_RELOAD_S):
            return
        if not self._by_len:
            self._install(self._read(), token, now)
        elif self._reloading is None:
            self._loaded_at = now  # (no second reload starts while this one runs)
            self._reloading = threading.Thread(
                target=self._reload, args=(token,), name="hoard-vocabulary", daemon=True
            )
            self._reloading.start()

    def _read(self) -> tuple[dict[int, list[str]], dict[str, int]]:
        by_len: dict[int, list[str]] = {}
        df: dict[str, int] = {}
        for term, count in self._load():
            if 3 <= len(term) <= 40 and term.isalpha():
                by_len.setdefault(len(term), []).append(term)
                df[term] = count
        return by_len, df

    def _install(
        self, words: tuple[dict[int, list[str]], dict[str, int]], token: object, at: float
    ) -> None:
        self._by_len, self._df = words
        self._loaded_at = at
        self._token = token

    def _reload(self, token: object) -> None:
        try:
            words = self._read()
        except Exception as exc:  # the old words keep answering; the next change retries
            log.warning("reloading the typo vocabulary failed: %s", exc)
            with self._lock:
                self._reloading = None
            return
        with self._lock:
            self._install(words, token, time.monotonic())
            self._reloading = None

    def wait_reloaded(self, timeout: float | None = None) -> None:
        """Wait for a background reload, if one is running."""
        thread = self._reloading
        if thread is not None:
            thread.join(timeout)

    def doc_counts(self, token: object) -> dict[str, int]:
        """How many notes hold each word (titles and bodies, as written)."""
        with self._lock:
            self._ensure(token)
            return self._df

    def warm(self, token: object) -> None:
        """Load the vocabulary now (a server does this at start, off the request path)."""
        with self._lock:
            self._ensure(token)

    def corrections(self, word: str, edits: int, token: object, most: int = 3) -> list[str]:
        """Words within ``edits`` of ``word`` (not ``word`` itself), best first: fewest
        edits, then most documents."""
        if edits <= 0:
            return []
        with self._lock:
            self._ensure(token)
            pool: list[str] = []
            for n in range(len(word) - edits, len(word) + edits + 1):
                pool.extend(self._by_len.get(n, ()))
            df = self._df
        found = extract(word, pool, scorer=OSA.distance, score_cutoff=edits, limit=None)
        ranked = sorted(
            ((term, dist) for term, dist, _ in found if term != word),
            key=lambda td: (td[1], -df.get(td[0], 0), td[0]),
        )
        return [t for t, _ in ranked[:most]]
