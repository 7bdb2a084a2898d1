"""What a search will ask the index: the query's chunks, the FTS5 expression, the words that
need completing or correcting, and what the posting budget keeps (see :mod:`.budget`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace

from hoard.adapters.index.store import Index
from hoard.adapters.search.budget import CountMemo, Plan, WordCounts, plan_groups
from hoard.adapters.search.queries import FtsQueries
from hoard.adapters.search.typos import Vocabulary
from hoard.core.config import SearchConfig
from hoard.core.query import (
    SEGMENTED_COLUMNS,
    Chunk,
    build_groups,
    is_prefix_eligible,
    max_edits,
    parse_natural,
    quote,
)

FTS_OPERATORS = frozenset({"and", "or", "not", "near"})

NO_PREFIX = 1 << 30
"""A ``prefix_min_length`` no word reaches."""

PREFIX_COMPLETIONS = 4
"""How many words as written a prefix term also matches exactly (most common first)."""

Expansions = dict[int, list[str]]
"""Extra words for a chunk, by the chunk's position."""


@dataclass(slots=True)
class QueryPlan:
    """A query made ready for the index. ``chunks`` are the searched chunks (after the
    budget), ``expr`` their FTS5 expression; ``rescore`` the left-out words that still count
    for the notes found; ``completions`` and ``corrections`` extra words for chunks that match
    nothing as typed (their hits count less when only a correction found them)."""

    chunks: list[Chunk]
    expr: str
    budget: Plan = field(default_factory=lambda: Plan([]))
    rescore: str = ""
    completions: Expansions = field(default_factory=dict)
    corrections: Expansions = field(default_factory=dict)
    common: list[str] = field(default_factory=list)
    """Words the common-word rule left out (not the posting budget)."""
    common_kept: bool = False
    """They were searched after all: without them the page was short."""

    def expansions(self) -> Expansions:
        """Completions and corrections together, by chunk."""
        keys = set(self.completions) | set(self.corrections)
        return {i: self.completions.get(i, []) + self.corrections.get(i, []) for i in keys}

    def terms(self) -> list[str]:
        """Every word a snippet should look for."""
        out = [t for c in self.chunks for t in (*c.tokens, *c.alternatives)]
        out += [r.run for c in self.chunks for r in c.runs]
        extra = (*self.completions.values(), *self.corrections.values())
        return out + [w for ws in extra for w in ws]


def fts_plan(queries: FtsQueries, query: str) -> QueryPlan:
    """The user's own FTS5 expression, checked; its words are only for snippets."""
    queries.check_fts_syntax(query)
    chunks = [c for c in parse_natural(query, FTS_OPERATORS) if c.single not in FTS_OPERATORS]
    return QueryPlan(chunks, query)


class Planner:
    """Plans natural-mode queries over one index."""

    def __init__(
        self, index: Index, queries: FtsQueries, vocab: Vocabulary, s: SearchConfig
    ) -> None:
        self.index = index
        self.queries = queries
        self.vocab = vocab
        self.s = s
        self.stopwords = frozenset(w.lower() for w in (*s.stopwords, *s.owner_names))
        self._word_counts = WordCounts()
        self.group_counts = CountMemo()
        """Bounded group counts across searches (the plan's and the conjunctive tiers')."""

    def natural_plan(
        self, conn: sqlite3.Connection, query: str, *, keep_common: bool = False
    ) -> QueryPlan | None:
        """The plan of a natural-mode query, or ``None`` when it has no words to search;
        ``keep_common`` searches the words the common-word rule would leave out."""
        chunks = parse_natural(query, self.stopwords)
        if not chunks:
            return None
        completions, corrections = self.expansions(conn, chunks)
        groups = build_groups(chunks, self.s.prefix_min_length, completions)
        every_word = replace(self.s.ranking, common_share=1.0)
        s = replace(self.s, ranking=every_word) if keep_common else self.s
        plan = self._budget(conn, chunks, corrections, s)
        common = (
            []
            if plan.cut
            else [chunks[i].tokens[0] for i in range(len(chunks)) if i not in plan.kept]
        )
        rescore = ""
        if plan.rescore:
            rescore = " OR ".join(build_groups([chunks[i] for i in plan.rescore], NO_PREFIX))
        if len(plan.kept) < len(chunks):
            chunks, completions, corrections = subset(plan.kept, chunks, completions, corrections)
            groups = [groups[i] for i in plan.kept]
        expr = " OR ".join(groups)
        return QueryPlan(
            chunks=chunks,
            expr=expr,
            budget=plan,
            rescore=rescore,
            completions=completions,
            corrections=corrections,
            common=common,
        )

    def _budget(
        self,
        conn: sqlite3.Connection,
        chunks: list[Chunk],
        corrections: Expansions,
        s: SearchConfig,
    ) -> Plan:
        heads = [
            " OR ".join(map(quote, corrections[i]))
            if i in corrections
            else " OR ".join(
                [quote(" ".join(c.tokens)), *(f"{SEGMENTED_COLUMNS} : {r.expr}" for r in c.runs)]
            )
            for i, c in enumerate(chunks)
        ]

        def count(word: str | None) -> int:
            return self._word_counts.count(conn, word, self.index.reader_token())

        return plan_groups(
            conn,
            heads,
            [None if i in corrections else c.single for i, c in enumerate(chunks)],
            s,
            self.index.note_count_cached(),
            count,
            self.group_counts.current(self.index.reader_token()),
        )

    def expansions(
        self, conn: sqlite3.Connection, chunks: list[Chunk]
    ) -> tuple[Expansions, Expansions]:
        """For a term that matches nothing as the index sees it (stemmed, folded, as a
        prefix): the words as written that start with it (the porter index cannot complete
        ``optimiz`` to ``optimization``), else typo corrections."""
        prefixes: Expansions = {}
        typos: Expansions = {}
        token: object = None
        for i, chunk in enumerate(chunks):
            term = chunk.single
            if term is None or chunk.alternatives or chunk.runs:
                continue
            prefix = is_prefix_eligible(term, self.s.prefix_min_length)
            if self.queries.matches_anything(conn, term, prefix):
                continue
            extra = self._completions(conn, term) if prefix else []
            if extra:
                prefixes[i] = extra
                continue
            edits = max_edits(term, self.s.typo_min_length, self.s.ranking.typo_two_edits_length)
            if not self.s.typo or edits == 0:
                continue
            if token is None:
                token = self.index.reader_token()
            fixes = self.vocab.corrections(term, edits, token)
            if fixes:
                typos[i] = fixes
        return prefixes, typos

    def _completions(self, conn: sqlite3.Connection, term: str) -> list[str]:
        words = self.queries.words_with_prefix(conn, term, PREFIX_COMPLETIONS + 1)
        return [w for w in words if w != term][:PREFIX_COMPLETIONS]


def subset(
    kept: list[int], chunks: list[Chunk], completions: Expansions, corrections: Expansions
) -> tuple[list[Chunk], Expansions, Expansions]:
    """The chunks at ``kept`` and their expansions, renumbered."""
    new = {old: i for i, old in enumerate(kept)}
    return (
        [chunks[i] for i in kept],
        {new[i]: v for i, v in completions.items() if i in new},
        {new[i]: v for i, v in corrections.items() if i in new},
    )
