"""The bar natural-mode search must not fall under: plain OR-ed SQLite FTS5 BM25.

A small in-memory FTS5 table over a set's notes (title with aliases ×3, tags ×2, body ×1,
hoard's own note parser for the fields), every query word quoted and OR-ed, ranked by BM25;
``porter unicode61 remove_diacritics 2`` by default (the evaldata README's reference figures
use the same weights).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from hoard.core.note import parse_note

PORTER = "porter unicode61 remove_diacritics 2"
_WORD = re.compile(r"[^\W_]+")


def plain_rankings(
    notes: Path, queries: Iterable[tuple[str, str]], k: int, tokenizer: str = PORTER
) -> dict[str, list[str]]:
    """Each query's top ``k`` note paths (relative to ``notes``), by query id."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(path UNINDEXED, title, tags, body, "
        f"tokenize='{tokenizer}')"
    )
    for p in sorted(notes.rglob("*.md")):
        rel = p.relative_to(notes).as_posix()
        doc = parse_note(rel, p.read_bytes())
        title = "\n".join([doc.title, *doc.aliases])
        conn.execute("INSERT INTO t VALUES(?,?,?,?)", (rel, title, " ".join(doc.tags), doc.body))
    out: dict[str, list[str]] = {}
    sql = "SELECT path FROM t WHERE t MATCH ? ORDER BY bm25(t, 3.0, 2.0, 1.0) LIMIT ?"
    for qid, text in queries:
        words = _WORD.findall(text.lower())
        expr = " OR ".join(f'"{w}"' for w in words)
        try:
            out[qid] = [r[0] for r in conn.execute(sql, (expr, k))] if words else []
        except sqlite3.OperationalError:
            out[qid] = []
    conn.close()
    return out
