"""How much of a natural-mode query to search: the common-word rule and the posting budget.

Both rest on one cheap fact per query group: how many notes it matches, counted by FTS5 with
a ``LIMIT`` so that counting a word found in every note costs no more than counting
``posting_budget`` of them.

- **Common words** (``RankingSettings.common_share``): in a query of several words, a word found in
  more than that share of the notes is left out.
- **Posting budget** (``RankingSettings.posting_budget``): when the groups of a query together match
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

from hoard.core.config import SearchConfig
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


Memo = dict[tuple[str, int], int]
"""Bounded counts by (group, cap)."""


class GroupCounter:
    """Bounded match counts of FTS5 groups, remembered for one search, or across searches
    in ``memo`` (see :class:`CountMemo`)."""

    def __init__(self, conn: sqlite3.Connection, cap: int, memo: Memo | None = None) -> None:
        self.conn = conn
        self.cap = cap
        """Counts stop here: a larger count reads as ``cap``."""
        self._seen: Memo = {} if memo is None else memo

    def count(self, group: str) -> int:
        key = (group, self.cap)
        n = self._seen.get(key)
        if n is None:
            n = int(self.conn.execute(_COUNT_SQL, (group, self.cap)).fetchone()[0])
            self._seen[key] = n
        return n


class CountMemo:
    """Bounded group counts kept across searches until the index changes (``token``) or
    ``MAX`` are held. A count of a common word walks up to ``posting_budget`` entries of its
    list (about 0.5 ms at 250,000 notes), and a vault's common words come back query after
    query."""

    MAX = 4096

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: object = None
        self._memo: Memo = {}

    def current(self, token: object) -> Memo:
        """The memo of the index as ``token`` names it (a fresh one when it changed)."""
        with self._lock:
            if token != self._token or len(self._memo) >= self.MAX:
                self._token, self._memo = token, {}
            return self._memo


@dataclass(frozen=True, slots=True)
class Plan:
    """What to search: the groups (indices into the query's groups, in order), OR-ed, or
    AND-ed when every group matches more notes than the budget."""

    kept: list[int]
    conjunctive: bool = False
    rescore: list[int] = field(default_factory=list)
    """Groups left out of the search that still count in the score of the notes it finds
    (see :data:`RESCORE_GROUPS`)."""
    cut: bool = False
    """The budget left groups out (not only the common-word rule)."""


def plan_groups(
    conn: sqlite3.Connection,
    heads: Sequence[str],
    words: Sequence[str | None],
    s: SearchConfig,
    total: int,
    word_count: Callable[[str | None], int],
    memo: Memo | None = None,
) -> Plan:
    """Which of a query's groups to search. ``heads[i]`` is what group ``i`` stands for, as an FTS5
    expression: the word or phrase as typed, or the typo corrections of a word that matches nothing.
    Its count (kept in ``memo`` across searches) stands for the group's: a prefix alternative can
    only add notes, and counting it would cost as much as searching it. ``words[i]`` is the group's
    one word as typed, else ``None`` (a phrase, a misspelt word): only such words can be left out
    as common; ``word_count`` says how many notes hold one, when a bounded count cannot tell.

    1. Each group's count, bounded a little above the budget.
    2. Words in more than ``common_share`` of the notes (as written, in titles and bodies:
       a date in every note's frontmatter is not common in this sense) go, when the
       bounded count allows it to be asked, or when step 3 or 4 needs it.
    3. A vault of no more notes than the budget, or a query within it: everything left.
       Else the rarest groups that fit the budget.
    4. When every group that matches anything matches more notes than the budget, no
       subset is cheap: those groups are searched together (AND), the common words left
       out first. The caller falls back to OR when that finds too little.
    """
    every = list(range(len(heads)))
    budget, share = s.ranking.posting_budget, s.ranking.common_share
    common = share * total if share < 1.0 and total >= 50 else None
    if len(heads) < 2 or (budget <= 0 and common is None):
        return Plan(every)
    counter = GroupCounter(conn, budget + 1 if budget > 0 else int(common or 0) + 1, memo)
    counts = [counter.count(g) for g in heads]

    def is_common(i: int, ask: bool = False) -> bool:
        """Group ``i`` is one word found in more than ``common_share`` of the notes (as
        written, in titles and bodies). Asked of the words table only when the bounded
        count allows it, or when ``ask``: a count stopped at the cap says nothing more."""
        word = words[i]
        if common is None or word is None:
            return False
        exact = counts[i] < counter.cap
        if exact and counts[i] <= common:
            return False
        if exact or counter.cap > common or ask:
            return word_count(word) > common
        return False

    kept = [i for i in every if not is_common(i)] or every
    if budget <= 0 or total <= budget or sum(counts[i] for i in kept) <= budget:
        return Plan(kept)  # (no query scores more notes than the vault holds)
    live = [i for i in kept if counts[i] > 0]
    if min(counts[i] for i in live) <= budget:
        chosen = [kept[j] for j in within_budget([counts[i] for i in kept], budget)]
        left = sorted((i for i in kept if i not in chosen), key=lambda i: (counts[i], i))
        rescore = left[:RESCORE_GROUPS] if len(heads) <= RESCORE_QUERY_GROUPS else []
        rescore = [i for i in rescore if not is_common(i, ask=True)]
        return Plan(chosen, rescore=sorted(rescore), cut=True)
    live = [i for i in live if not is_common(i, ask=True)] or live
    return Plan(live, conjunctive=len(live) > 1, cut=True)


def held_to_budget(
    conn: sqlite3.Connection, groups: list[str], budget: int, total: int, memo: Memo | None = None
) -> list[str]:
    """Extra groups OR-ed into one query (feedback words), held to the budget as a query's
    own are: the rarest that fit, or none when each alone is over it. Unchanged on a vault
    of no more notes than the budget, or with the budget off."""
    if not 0 < budget < total or len(groups) < 2:
        return groups
    counter = GroupCounter(conn, budget + 1, memo)
    counts = [counter.count(g) for g in groups]
    if min(counts) > budget:
        return []
    return [groups[i] for i in within_budget(counts, budget)]


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
