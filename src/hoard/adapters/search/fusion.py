"""The lexical scores of a search blended with the semantic side's (issue 19).

:func:`blend_rows` takes the lexical candidates (``Scores``, their BM25 with the folder
multiplier in it) and the semantic top-N (``(path, cosine)``, already limited to what the
caller may see), takes the folder multiplier out of the lexical side, blends both with
:func:`hoard.core.semantic.blend` and puts the multiplier back on the blend, so folder
weights work on the fused score as they do on BM25. A note found only semantically gets its
row from ``notes``; the diversity cap and the page come after, as for any search.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TypeVar

from hoard.adapters.search.types import Row, Scored, Scores
from hoard.core.semantic import blend

T = TypeVar("T")


def blend_rows(
    conn: sqlite3.Connection,
    scores: Scores,
    semantic: Sequence[tuple[str, float]],
    weight: float,
) -> Scores:
    """``scores`` with the blended score of every candidate of either side."""
    by_path = {v.row.path: rowid for rowid, v in scores.items()}
    missing = [p for p, _ in semantic if p not in by_path]
    rows: dict[int, Row] = {}
    mult: dict[int, float] = {}
    for id_chunk in _chunks(list(scores), 500):
        marks = ",".join("?" * len(id_chunk))
        for rowid, m in conn.execute(
            f"SELECT id, rank_mult FROM notes WHERE id IN ({marks})", id_chunk
        ):
            mult[rowid] = m
    for path_chunk in _chunks(missing, 500):
        marks = ",".join("?" * len(path_chunk))
        for rowid, path, title, folder, fm, m in conn.execute(
            "SELECT id, path, title, folder, fm_json, rank_mult FROM notes "
            f"WHERE path IN ({marks})",
            path_chunk,
        ):
            rows[rowid] = Row(rowid, path, title, folder, fm, 0.0)
            mult[rowid] = m
            by_path[path] = rowid
    lexical = {k: v.score / (mult.get(k) or 1.0) for k, v in scores.items()}
    near = {by_path[p]: cos for p, cos in semantic if p in by_path}
    out: Scores = {}
    for k, value in blend(lexical, near, weight).items():
        m = mult.get(k, 1.0)
        old = scores.get(k)
        if old is not None:
            out[k] = Scored(value * m, old.typo_only, old.row)
        else:
            out[k] = Scored(value * m, False, rows[k])
    return out


def _chunks(items: list[T], size: int) -> list[list[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
