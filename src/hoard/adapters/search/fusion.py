"""The lexical scores of a search blended with the semantic side's.

:func:`blend_rows` takes the lexical candidates (``Scores``, their BM25 with the folder
multiplier in it) and the semantic top-N (``(path, cosine)``, already limited to what the
caller may see), takes the folder multiplier out of the lexical side, blends both with
:func:`hoard.core.semantic.blend` and puts the multiplier back on the blend, so folder
weights work on the fused score as they do on BM25. The diversity cap and the page come
after, as for any search.

A lexical candidate's row carries its multiplier. The notes found semantically alone have
no row yet, and reading them is most of the blend's cost: only those that could reach the
page are read. Their score is at most their blend times the largest folder multiplier; the
page is the first ``limit`` of the notes the diversity cap lets through first, and adding
notes never lowers the score of the last of those (a folder's first notes are its best), so
a note whose bound is below that score can never be on the page and is left out.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from hoard.adapters.search.types import (
    Row,
    Scored,
    Scores,
    SearchRequest,
    folder_turns,
    shown_best_first,
)
from hoard.core.config import SearchConfig
from hoard.core.semantic import blend

_CHUNK = 500
"""Paths a look-up binds at most (SQLite's default limit is 32,766 variables)."""


def blend_rows(
    conn: sqlite3.Connection, scores: Scores, req: SearchRequest, search: SearchConfig
) -> Scores:
    """``scores`` with the blended score of every lexical candidate and of the semantic
    candidates that could reach the page of ``req``."""
    semantic = req.semantic.result() if req.semantic is not None else ()
    by_path = {v.row.path: rowid for rowid, v in scores.items()}
    lexical: dict[int | str, float] = {k: v.score / (v.row.mult or 1.0) for k, v in scores.items()}
    near: dict[int | str, float] = {by_path.get(p, p): cos for p, cos in semantic}
    blended = blend(lexical, near, req.semantic_weight)
    out: Scores = {}
    for k, v in scores.items():
        out[k] = Scored(blended[k] * v.row.mult, v.typo_only, v.row)
    most = max([1.0, *search.folder_weights.values()])
    floor = page_floor(out.values(), req, search.folder_cap)
    wanted = [
        p for p in near if isinstance(p, str) and (floor is None or blended[p] * most >= floor)
    ]
    for row in semantic_only_rows(conn, wanted):
        out[row.id] = Scored(blended[row.path] * row.mult, False, row)
    return out


def page_floor(scored: Iterable[Scored], req: SearchRequest, cap: int) -> float | None:
    """The score of the last note on the page that ``scored`` alone would give (the
    ``req.limit``-th the caller may see that the diversity cap lets through first), or
    ``None`` when those notes do not fill the page."""
    shown, _ = shown_best_first(scored, req.visible)
    first, _ = folder_turns(shown, cap, lambda v: v.row.folder)
    return first[req.limit - 1].score if len(first) >= req.limit else None


def semantic_only_rows(conn: sqlite3.Connection, paths: list[str]) -> list[Row]:
    """The index rows of the notes at ``paths`` (a note gone since its vector was made is
    simply absent), their score 0: they have no lexical one."""
    out: list[Row] = []
    for at in range(0, len(paths), _CHUNK):
        chunk = paths[at : at + _CHUNK]
        marks = ",".join("?" * len(chunk))
        out += [
            Row(id=rowid, path=path, title=title, folder=folder, fm_json=fm, score=0.0, mult=mult)
            for rowid, path, title, folder, fm, mult in conn.execute(
                "SELECT id, path, title, folder, fm_json, rank_mult FROM notes "
                f"WHERE path IN ({marks})",
                chunk,
            )
        ]
    return out
