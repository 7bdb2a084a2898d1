"""The exact form of a rare word. Porter stemming merges the word a person typed with its
whole family (``structural`` matches every note saying ``structure``) and BM25 then weighs it
by the family's document frequency, so a rare word cut from a note's text finds that note
below the family's best notes. For a short query's word whose typed form is in only a few
notes while its stem family is in many times as many, and in no note's title, the notes
holding the typed form (the unstemmed, positionless ``words`` table) gain that word's BM25
again, scaled by how much rarer the typed form is (its IDF over the family's). A family in a
title is left alone: a person typing ``menus`` most likely wants the note titled ``Menu``,
not a note that happens to say ``menus``."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

from hoard.adapters.search.budget import GroupCounter
from hoard.adapters.search.types import Row, Scored, Scores
from hoard.core.query import Chunk, quote
from hoard.core.ranking import RankingSettings

_ROWS = (
    "SELECT n.id, n.path, n.title, n.folder, n.fm_json, "
    "-bm25(notes_fts, ?, ?, ?, ?, ?, ?, ?, ?) * n.rank_mult AS s, n.rank_mult "
    "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
    "WHERE notes_fts MATCH ? AND notes_fts.rowid IN "
    "(SELECT rowid FROM words WHERE words MATCH ? LIMIT ?)"
)
"""Notes matching an expression that hold a word as typed, with their BM25 for it."""


def _typed(conn: sqlite3.Connection, phrase: str, most: int) -> int:
    """How many notes hold the word as typed (the unstemmed ``words`` table), up to ``most``."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM words WHERE words MATCH ? LIMIT ?)"
    return int(conn.execute(sql, (phrase, most)).fetchone()[0])


def _titled(conn: sqlite3.Connection, phrase: str) -> bool:
    """Does any note's title (or alias) hold the word's stem family?"""
    sql = "SELECT 1 FROM titles WHERE titles MATCH ? LIMIT 1"
    return conn.execute(sql, (f"title : {phrase}",)).fetchone() is not None


def idf(n: int, total: int) -> float:
    """FTS5's BM25 IDF of a term in ``n`` of ``total`` notes (never below 1e-6)."""
    return max(1e-6, math.log((total - n + 0.5) / (n + 0.5)))


def rare_forms(
    conn: sqlite3.Connection,
    chunks: Sequence[Chunk],
    r: RankingSettings,
    total: int,
    families: GroupCounter,
) -> list[tuple[str, float]]:
    """The query's words whose typed form is in at most ``exact_max_notes`` notes while
    their stem family is in at least ``exact_min_ratio`` times as many and in no title,
    each with the ratio of the two IDFs (typed form over family). ``families`` counts the
    notes of a stem family, up to the posting budget (the planner's counter and memo)."""
    out: list[tuple[str, float]] = []
    for c in chunks:
        word = c.single
        if word is None or c.runs or len(word) < r.exact_min_length or word.isdigit():
            continue
        phrase = quote(word)
        exact = _typed(conn, phrase, r.exact_max_notes + 1)
        if exact == 0 or exact > r.exact_max_notes:
            continue
        family = families.count(phrase)
        if family < r.exact_min_ratio * exact or _titled(conn, phrase):
            continue
        out.append((word, idf(exact, total) / idf(family, total)))
    return out


def add_exact_forms(
    conn: sqlite3.Connection,
    scores: Scores,
    chunks: Sequence[Chunk],
    expr: str,
    weights: Sequence[float],
    r: RankingSettings,
    total: int,
    families: GroupCounter,
) -> None:
    """Notes holding a rare typed form gain ``exact_weight`` × that word's BM25 × the IDF
    ratio. Ones the first page of scores had not reached join with their full score first.
    Only queries of at most ``exact_max_words`` words: in a longer one a single rare form
    would outweigh the rest of the question (measured on CACM)."""
    if len(chunks) > r.exact_max_words:
        return
    for word, ratio in rare_forms(conn, chunks, r, total, families):
        phrase = quote(word)
        params = (*weights, phrase, phrase, r.exact_max_notes)
        own = [Row(*x) for x in conn.execute(_ROWS, params)]
        if any(row.id not in scores for row in own):
            for x in conn.execute(_ROWS, (*weights, expr, phrase, r.exact_max_notes)):
                row = Row(*x)
                scores.setdefault(row.id, Scored(row.score, False, row))
        for row in own:
            prev = scores.get(row.id)
            if prev is not None:
                gain = r.exact_weight * row.score * ratio
                scores[row.id] = prev._replace(score=prev.score + gain)
