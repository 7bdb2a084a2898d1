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
from collections.abc import Sequence
from dataclasses import dataclass

from hoard.config import SearchConfig
from hoard.core.query import within_budget

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
    spare: int | None = None
    """What the kept groups leave of the posting budget (``None``: no budget applies)."""


def plan_groups(
    conn: sqlite3.Connection,
    heads: Sequence[str],
    single: Sequence[bool],
    s: SearchConfig,
    total: int,
) -> Plan:
    """Which of a query's groups to search. ``heads[i]`` is group ``i``'s word or phrase as
    typed, quoted for FTS5: its count stands for the group's (a prefix alternative can only
    add notes, and counting it would cost as much as searching it). ``single[i]`` says the
    group is one word: only those can be left out as common (a phrase never is).

    1. Each group's count, bounded a little above the budget.
    2. Words in more than ``common_share`` of the notes go (when that is decidable from the
       bounded count, or when step 4 needs it).
    3. A vault of no more notes than the budget, or a query within it: everything left.
       Else the rarest groups that fit the budget.
    4. When every group matches more notes than the budget, no subset is cheap: the groups
       are searched together (AND), the common words left out first. The caller falls
       back to OR when that finds too little.
    """
    groups = heads
    every = list(range(len(groups)))
    budget = s.posting_budget
    common = s.common_share * total if s.common_share < 1.0 and total >= 50 else None
    if len(groups) < 2 or (budget <= 0 and common is None):
        return Plan(every)
    counter = GroupCounter(conn, budget + 1 if budget > 0 else int(common or 0) + 1)
    counts = [counter.count(g) for g in groups]
    kept = _without_common(every, counts, single, common) or every
    used = sum(counts[i] for i in kept)
    if budget <= 0 or total <= budget:
        return Plan(kept)  # no query can score more notes than the vault holds
    if used <= budget:
        return Plan(kept, spare=budget - used)
    if min(counts[i] for i in kept) <= budget:
        chosen = [kept[j] for j in within_budget([counts[i] for i in kept], budget)]
        return Plan(chosen, spare=budget - sum(counts[i] for i in chosen))
    if common is not None and common > budget:
        exact = GroupCounter(conn, int(common) + 1)
        exact_counts = [exact.count(g) if i in kept else 0 for i, g in enumerate(groups)]
        kept = _without_common(kept, exact_counts, single, common) or kept
    return Plan(kept, conjunctive=len(kept) > 1, spare=0)


def held_corrections(
    conn: sqlite3.Connection, corrections: dict[int, list[str]], spare: int | None
) -> dict[int, list[str]]:
    """The typo corrections that fit what the query left of the budget, rarest first: a
    misspelt word whose correction is in half the notes adds little but cost."""
    if spare is None or not corrections:
        return corrections
    counter = GroupCounter(conn, spare + 1)
    counts = {
        i: counter.count(" OR ".join(_quote(w) for w in words)) for i, words in corrections.items()
    }
    held: dict[int, list[str]] = {}
    for i in sorted(counts, key=lambda i: (counts[i], i)):
        if counts[i] > spare:
            break
        held[i] = corrections[i]
        spare -= counts[i]
    return held


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _without_common(
    indices: list[int], counts: Sequence[int], single: Sequence[bool], common: float | None
) -> list[int]:
    if common is None:
        return indices
    return [i for i in indices if not (single[i] and counts[i] > common)]
