"""Ranking internals: fixed in code, not read from ``hoard.toml`` (the quality bench varies them).

They were once ``[search]`` keys of ``hoard.toml``; a file that still sets one loads with a
warning naming the key (:data:`RETIRED_SEARCH_KEYS`), and the value is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class RankingSettings:
    """The tuned constants of lexical ranking (measured in docs/quality.md)."""

    typo_two_edits_length: int = 8
    """Shortest query term that gets two typo edits (shorter ones get one)."""
    typo_penalty: float = 0.6
    """Score multiplier for hits found only through a typo correction."""
    common_share: float = 0.4
    """In a query of several words, a word found in more than this share of the notes is
    left out (1.0 keeps every word)."""
    posting_budget: int = 5000
    """When a query's words together match more notes than this, only the rarest words
    that fit are searched (0: always every word)."""
    feedback_terms: int = 10
    """Pseudo-relevance feedback: words from the first hits of a long query searched too
    (0 turns it off)."""
    feedback_min_words: int = 5
    """Feedback applies to queries of at least this many words."""
    feedback_weight: float = 0.1
    """How much the feedback words' score counts against the query's own."""
    phrase_weight: float = 0.2
    """Proximity: how much a phrase match of two adjacent query words adds (0: off)."""
    exact_weight: float = 3.0
    """A rare typed form (:mod:`hoard.adapters.search.exact`): how much of the word's BM25
    the notes holding it as typed gain again, times its IDF over its stem family's (0: off)."""
    exact_max_notes: int = 4
    """A typed form counts as rare when at most this many notes hold it."""
    exact_min_ratio: float = 3.0
    """... and its stem family is in at least this many times as many notes."""
    exact_max_words: int = 2
    """Only queries of at most this many searched words."""
    exact_min_length: int = 5
    """Shortest word the rule looks at."""


RETIRED_SEARCH_KEYS: frozenset[str] = frozenset(f.name for f in fields(RankingSettings))
"""``[search]`` keys of ``hoard.toml`` that are no longer configurable."""
