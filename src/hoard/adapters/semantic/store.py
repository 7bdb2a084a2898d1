"""Note vectors: a disposable cache beside the index (``semantic.db`` in the state folder)
and the matrix that searches them.

The file keeps one row a note, ``(path, revision, vector)``, and the model it was made with:
another model (or another recipe for a note's text) empties it, so it is rebuilt. Rows are
committed in small batches, so a build killed midway resumes where it stopped. The matrix in
memory mirrors the file; a search is one matrix-vector product (brute force: 2 ms over the
13k-note vault's 19.7 MB of vectors, see ``bench/semantic.py``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hoard.adapters.semantic.encoder import Matrix

Allowed = Callable[[str], bool]


class VectorStore:
    """Thread-safe: one writer connection and the matrix under one lock."""

    def __init__(self, path: Path, model_id: str, dim: int) -> None:
        self.path = path
        self.model_id = model_id
        self.dim = dim
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(
            "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS vectors("
            "path TEXT PRIMARY KEY, revision TEXT NOT NULL, vec BLOB NOT NULL)"
        )
        row = self._conn.execute("SELECT value FROM meta WHERE key='model'").fetchone()
        if row is None or row[0] != model_id:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM vectors")
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES('model', ?)", (model_id,))
            self._conn.execute("COMMIT")
        self._paths: list[str] = []
        self._rows: dict[str, int] = {}
        self._revisions: dict[str, str] = {}
        self._mat: Matrix = np.zeros((0, dim), np.float32)
        self._load()

    def _load(self) -> None:
        rows = self._conn.execute("SELECT path, revision, vec FROM vectors").fetchall()
        self._mat = np.zeros((max(len(rows), 64), self.dim), np.float32)
        for i, (path, revision, blob) in enumerate(rows):
            self._mat[i] = np.frombuffer(blob, np.float32)
            self._paths.append(path)
            self._rows[path] = i
            self._revisions[path] = revision

    def __len__(self) -> int:
        return len(self._paths)

    def revisions(self) -> dict[str, str]:
        """The revision each stored vector was made from, by path."""
        with self._lock:
            return dict(self._revisions)

    def put(self, items: Iterable[tuple[str, str, Matrix]]) -> None:
        """Store ``(path, revision, vector)`` rows in one transaction."""
        items = list(items)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors VALUES(?, ?, ?)",
                [(p, r, v.astype(np.float32).tobytes()) for p, r, v in items],
            )
            self._conn.execute("COMMIT")
            for path, revision, vec in items:
                row = self._rows.get(path)
                if row is None:
                    row = len(self._paths)
                    if row == len(self._mat):
                        grown = np.zeros((len(self._mat) * 2, self.dim), np.float32)
                        grown[:row] = self._mat
                        self._mat = grown
                    self._paths.append(path)
                    self._rows[path] = row
                self._mat[row] = vec
                self._revisions[path] = revision

    def remove(self, paths: Iterable[str]) -> None:
        paths = [p for p in paths if p in self._rows]
        if not paths:
            return
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany("DELETE FROM vectors WHERE path=?", [(p,) for p in paths])
            self._conn.execute("COMMIT")
            for path in paths:
                row = self._rows.pop(path)
                self._revisions.pop(path, None)
                last = len(self._paths) - 1
                if row != last:
                    moved = self._paths[last]
                    self._paths[row] = moved
                    self._rows[moved] = row
                    self._mat[row] = self._mat[last]
                self._paths.pop()

    def vector(self, path: str) -> Matrix | None:
        with self._lock:
            row = self._rows.get(path)
            return None if row is None else self._mat[row].copy()

    def nearest(self, query: Matrix, n: int, allowed: Allowed | None) -> list[tuple[str, float]]:
        """The ``n`` stored notes most similar to ``query`` (cosine: the vectors are unit
        length) that ``allowed`` lets through, best first. One matrix-vector product, then
        a partial sort of the best few (all of them only when the filter lets too few of
        those through)."""
        with self._lock:
            count = len(self._paths)
            if count == 0 or n <= 0:
                return []
            sims = self._mat[:count] @ query
            for pool in (min(count, n if allowed is None else max(4 * n, n + 64)), count):
                order = _best(sims, pool)
                out: list[tuple[str, float]] = []
                for i in order:
                    path = self._paths[int(i)]
                    if allowed is None or allowed(path):
                        out.append((path, float(sims[i])))
                        if len(out) == n:
                            return out
                if pool == count:
                    break
            return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _best(sims: Matrix, k: int) -> NDArray[np.intp]:
    """The indexes of the ``k`` highest values, highest first (ties by index)."""
    if k < len(sims):
        top = np.argpartition(-sims, k - 1)[:k]
        out: NDArray[np.intp] = top[np.lexsort((top, -sims[top]))]
        return out
    full: NDArray[np.intp] = np.argsort(-sims, kind="stable")
    return full
