"""How much of a natural-mode query to search: the common-word rule and the posting budget.

Both rest on one cheap fact per query group: how many notes it matches, counted by FTS5 with
a ``LIMIT`` so that counting a word found in every note costs no more than counting
``posting_budget`` of them.

- **Common words** (``search.common_share``): in a query of several words, a word found in
  more than that share of the notes is left out.
- **Posting budget** (``search.posting_budget``): when the groups of a query together match
  more notes than the budget, only the rarest are searched (see
  :func:`hoard.core.query.within_budget`). On a small vault this never applies; on a vault
  of 170,000 notes it keeps a sentence-long query from scoring every note that holds
  "remote" or "attackers".
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hoard.config import SearchConfig
from hoard.core.query import within_budget

RESCORE_GROUPS = 8
"""How many of the groups the budget left out still count in the score, rarest first. The
search finds the notes that hold the rare groups (E); the notes among them that also hold
some of these (D) are found again by ``E AND D``, whose BM25 is exactly the full query's for
them (the left-out words matched as written, not as prefixes). Each costs FTS5 a pass over
its list to weigh it, so not every word of a sentence, and never one in more than
``common_share`` of the notes."""

RESCORE_QUERY_GROUPS = 16
"""Rescoring is for titles and short questions: in a longer query the rare words that fit
the budget already say what it is about (and rescoring 8 more words of a 60-word query
cost 50 ms on the CVE corpus)."""

_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? LIMIT ?)"


class GroupCounter:
    """Bounded match counts of FTS5 groups, remembered for one search."""

    def __init__(self, conn: sqlite3.Connection, cap: int) -> None:
        self.conn = conn
        self.cap = cap
        """Counts stop here: a larger count reads as ``cap`` (-1: no limit)."""
        self._seen: dict[str, int] = {}

    def count(self, group: str) -> int:
        n = self._seen.get(group)
        if n is None:
            n = int(self.conn.execute(_COUNT_SQL, (group, self.cap)).fetchone()[0])
            self._seen[group] = n
        return n


@dataclass(frozen=True, slots=True)
class Plan:
    """What to search: the groups (indices into the query's groups, in order), OR-ed, or
    AND-ed when every group matches more notes than the budget."""

    kept: list[int]
    conjunctive: bool = False
    rescore: list[int] = field(default_factory=list)
    """Groups left out of the search that still count in the score of the notes it finds
    (see :data:`RESCORE_GROUPS`)."""


def plan_groups(
    conn: sqlite3.Connection,
    heads: Sequence[str],
    words: Sequence[str | None],
    s: SearchConfig,
    total: int,
    word_count: Callable[[str | None], int],
) -> Plan:
    """Which of a query's groups to search. ``heads[i]`` is what group ``i`` stands for, as
    an FTS5 expression: the word or phrase as typed, or the typo corrections of a word that
    matches nothing. Its count stands for the group's (a prefix alternative can only add
    notes, and counting it would cost as much as searching it). ``words[i]`` is the group's
    one word as typed, else ``None``: only such groups can be left out as common (a phrase
    or a misspelt word never is). ``word_count`` says how many notes hold such a word (see
    :class:`WordCounts`), asked only when a bounded count cannot tell.

    1. Each group's count, bounded a little above the budget.
    2. Words in more than ``common_share`` of the notes go (when that is decidable from the
       bounded count, or when step 4 needs it).
    3. A vault of no more notes than the budget, or a query within it: everything left.
       Else the rarest groups that fit the budget.
    4. When every group that matches anything matches more notes than the budget, no
       subset is cheap: those groups are searched together (AND), the common words left
       out first. The caller falls back to OR when that finds too little.
    """
    every = list(range(len(heads)))
    single = [w is not None for w in words]
    budget = s.posting_budget
    common = s.common_share * total if s.common_share < 1.0 and total >= 50 else None
    if len(heads) < 2 or (budget <= 0 and common is None):
        return Plan(every)
    counter = GroupCounter(conn, budget + 1 if budget > 0 else int(common or 0) + 1)
    counts = [counter.count(g) for g in heads]
    kept = _without_common(every, counts, single, common) or every
    if budget <= 0 or total <= budget or sum(counts[i] for i in kept) <= budget:
        return Plan(kept)  # (no query scores more notes than the vault holds)
    live = [i for i in kept if counts[i] > 0]
    if min(counts[i] for i in live) <= budget:
        chosen = [kept[j] for j in within_budget([counts[i] for i in kept], budget)]
        left = sorted((i for i in kept if i not in chosen), key=lambda i: (counts[i], i))
        rescore = left[:RESCORE_GROUPS] if len(heads) <= RESCORE_QUERY_GROUPS else []
        if common is not None and common > budget:
            seen = {i: word_count(words[i]) for i in rescore if counts[i] > budget}
            rescore = [i for i in rescore if seen.get(i, 0) <= common]
        return Plan(chosen, rescore=sorted(rescore))
    if common is not None and common > budget:
        exact = [
            word_count(words[i]) if i in live and counts[i] > budget else counts[i] for i in every
        ]
        live = _without_common(live, exact, single, common) or live
    return Plan(live, conjunctive=len(live) > 1)


class WordCounts:
    """How many notes hold a word as written, from the positionless ``words`` table (its
    lists are quicker to walk than the search index's, yet a word in 170,000 notes still
    takes 10-20 ms). The common words of a vault come back query after query, so counts are
    remembered until the index changes (``token``) or ``MAX`` words are held."""

    MAX = 4096

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: object = None
        self._counts: dict[str, int] = {}

    def count(self, conn: sqlite3.Connection, word: str | None, token: object) -> int:
        if word is None:
            return 0
        with self._lock:
            if token != self._token or len(self._counts) >= self.MAX:
                self._token, self._counts = token, {}
            n = self._counts.get(word)
        if n is None:
            row = conn.execute("SELECT doc FROM words_vocab WHERE term = ?", (word,)).fetchone()
            n = int(row[0]) if row else 0
            with self._lock:
                if token == self._token:
                    self._counts[word] = n
        return n


def _without_common(
    indices: list[int], counts: Sequence[int], single: Sequence[bool], common: float | None
) -> list[int]:
    if common is None:
        return indices
    return [i for i in indices if not (single[i] and counts[i] > common)]
