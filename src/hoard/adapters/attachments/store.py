"""``attachments.db`` in the state folder: attachments' text, cached by the SHA-256 of the
file's bytes, its full-text index, and which vault files have which hash. A disposable cache
like ``index.db``: deleted or found broken, it is made again and the files read again.

Tables: ``files`` (path, folder, mtime_ns, size, sha256, kind, and a problem found before
the bytes were hashed: too large, unreadable), ``texts`` (one row a hash: page count, or the
problem the extraction met), ``pages`` (one row a page of a hash) and ``pages_fts`` (FTS5
over the pages, external content). One writer at a time under a lock; a connection per
thread for reads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hoard.adapters.index.schema import TOKENIZER
from hoard.core.attachments import Extracted

log = logging.getLogger("hoard.attachments")

VERSION = "1"
SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
  path TEXT PRIMARY KEY,
  folder TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  kind TEXT NOT NULL,
  problem TEXT,
  detail TEXT
);
CREATE INDEX files_sha ON files(sha256);
CREATE TABLE texts(
  sha256 TEXT PRIMARY KEY,
  pages INTEGER NOT NULL,
  problem TEXT,
  detail TEXT NOT NULL,
  truncated INTEGER NOT NULL
);
CREATE TABLE pages(
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL,
  page INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX pages_sha ON pages(sha256, page);
CREATE VIRTUAL TABLE pages_fts USING fts5(
  body, content = 'pages', content_rowid = 'id', tokenize = '{TOKENIZER}'
);
"""


@dataclass(frozen=True, slots=True)
class FileRow:
    path: str
    mtime_ns: int
    size: int
    sha256: str
    kind: str
    problem: str | None
    detail: str


@dataclass(frozen=True, slots=True)
class PageHit:
    path: str
    page: int
    score: float
    """BM25, higher is better."""
    body: str


class AttachmentStore:
    """The file and its connections. Thread-safe."""

    def __init__(self, path: Path, limits_key: str) -> None:
        self.path = path
        self.limits_key = limits_key
        self._lock = threading.RLock()
        self._local = threading.local()
        self._writer: sqlite3.Connection | None = None
        self.generation = 0
        """Bumped on every change (readers' caches key on it)."""
        self._page_count: tuple[int, int] | None = None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=10.0, check_same_thread=False, isolation_level=None
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def exists(self) -> bool:
        return self.path.is_file()

    def open(self) -> None:
        """Create the file, or check the one there: an unreadable, foreign or older one is
        made anew (its texts are read again; damage found later, by a walk, does the same,
        see :meth:`reset`). Problems met under other limits are forgotten, so
        a raised limit reads those files again."""
        with self._lock:
            problem = self._problem() if self.path.exists() else "missing"
            if problem is not None:
                if problem != "missing":
                    log.warning("making attachments.db anew: %s", problem)
                self._reset()
            conn = self._writer_conn()
            row = conn.execute("SELECT value FROM meta WHERE key='limits'").fetchone()
            if row is None or row[0] != self.limits_key:
                with self.transaction() as tx:
                    tx.execute("DELETE FROM texts WHERE problem IS NOT NULL")
                    tx.execute(
                        "INSERT OR REPLACE INTO meta VALUES('limits', ?)", (self.limits_key,)
                    )

    def _problem(self) -> str | None:
        try:
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
            try:
                row = conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
                if row is None or row[0] != VERSION:
                    return "another version"
            finally:
                conn.close()
        except sqlite3.Error as exc:
            return f"unusable ({exc})"
        return None

    def reset(self) -> None:
        """Make the file anew, empty (a damaged cache is not repaired: it is read again)."""
        with self._lock:
            self._reset()

    def _reset(self) -> None:
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(self.path) + suffix)
        conn = self._writer_conn()
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO meta VALUES('version', ?)", (VERSION,))
        self.generation += 1

    def _writer_conn(self) -> sqlite3.Connection:
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = self._connect()
        return self._writer

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._writer_conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                self.generation += 1

    def reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "generation_reset", None) != self._resets():
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")
            self._local.conn = conn
            self._local.generation_reset = self._resets()
        return conn

    def _resets(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- writes ------------------------------------------------------------------------------

    def put_file(self, row: FileRow, folder: str) -> None:
        with self.transaction() as tx:
            tx.execute(
                "INSERT OR REPLACE INTO files VALUES(?,?,?,?,?,?,?,?)",
                (
                    row.path,
                    folder,
                    row.mtime_ns,
                    row.size,
                    row.sha256,
                    row.kind,
                    row.problem,
                    row.detail,
                ),
            )

    def put_text(self, found: Extracted) -> None:
        with self.transaction() as tx:
            if tx.execute("SELECT 1 FROM texts WHERE sha256=?", (found.sha256,)).fetchone():
                _delete_text(tx, found.sha256)
            tx.execute(
                "INSERT INTO texts VALUES(?,?,?,?,?)",
                (found.sha256, len(found.pages), found.problem, found.detail, int(found.truncated)),
            )
            for n, body in enumerate(found.pages, start=1):
                cur = tx.execute(
                    "INSERT INTO pages(sha256, page, body) VALUES(?,?,?)", (found.sha256, n, body)
                )
                tx.execute("INSERT INTO pages_fts(rowid, body) VALUES(?,?)", (cur.lastrowid, body))

    def remove_files(self, paths: list[str]) -> None:
        with self.transaction() as tx:
            tx.executemany("DELETE FROM files WHERE path=?", [(p,) for p in paths])

    def drop_orphans(self) -> int:
        """Forget the texts no file has any more (a file renamed keeps its text: run this
        after the new paths are in)."""
        with self.transaction() as tx:
            orphans = tx.execute(
                "SELECT sha256 FROM texts WHERE sha256 NOT IN (SELECT sha256 FROM files)"
            ).fetchall()
            for (sha,) in orphans:
                _delete_text(tx, sha)
        return len(orphans)

    # -- reads -------------------------------------------------------------------------------

    def known_files(self) -> dict[str, tuple[int, int]]:
        rows = self.reader().execute("SELECT path, mtime_ns, size FROM files")
        return {p: (m, s) for p, m, s in rows}

    def has_text(self, sha256: str) -> bool:
        row = self.reader().execute("SELECT 1 FROM texts WHERE sha256=?", (sha256,)).fetchone()
        return row is not None

    def text(self, sha256: str) -> Extracted | None:
        conn = self.reader()
        row = conn.execute(
            "SELECT problem, detail, truncated FROM texts WHERE sha256=?", (sha256,)
        ).fetchone()
        if row is None:
            return None
        pages = conn.execute("SELECT body FROM pages WHERE sha256=? ORDER BY page", (sha256,))
        return Extracted(
            sha256=sha256,
            pages=tuple(b for (b,) in pages),
            problem=row[0],
            detail=row[1],
            truncated=bool(row[2]),
        )

    def problems(self) -> list[tuple[str, str, str]]:
        """``(path, problem, detail)`` of every attachment listed instead of indexed."""
        rows = self.reader().execute(
            "SELECT f.path, COALESCE(f.problem, t.problem),"
            " CASE WHEN f.problem IS NOT NULL THEN f.detail ELSE t.detail END"
            " FROM files f LEFT JOIN texts t ON t.sha256 = f.sha256"
            " WHERE f.problem IS NOT NULL OR t.problem IS NOT NULL ORDER BY f.path"
        )
        return [(p, str(k), str(d or "")) for p, k, d in rows]

    def counts(self) -> tuple[int, int]:
        """``(files, pages)`` indexed."""
        conn = self.reader()
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        pages = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
        return int(files), int(pages)

    def page_count(self) -> int:
        """How many pages are indexed (cached until the next change)."""
        cached = self._page_count
        if cached is not None and cached[0] == self.generation:
            return cached[1]
        n = int(self.reader().execute("SELECT count(*) FROM pages").fetchone()[0])
        self._page_count = (self.generation, n)
        return n

    def phrase_counts(self, phrases: list[str], cap: int) -> list[int]:
        """How many pages hold each FTS5 string, each count stopped at ``cap`` (counting a
        word on every page costs no more than counting ``cap`` of them)."""
        conn = self.reader()
        return [int(conn.execute(_COUNT_SQL, (p, cap)).fetchone()[0]) for p in phrases]

    def search(self, expr: str, limit: int, folder: str | None) -> list[PageHit]:
        """Pages matching the FTS5 expression ``expr``, best first, the best page of each
        file once. FTS5 ranks the pages on its own first (its top-N is cheaper than ranking
        the join); a folder filter ranks the pages inside it."""
        args: list[object]
        if folder:
            sql = (
                "SELECT f.path, p.page, -bm25(pages_fts), p.id FROM pages_fts"
                " JOIN pages p ON p.id = pages_fts.rowid JOIN files f ON f.sha256 = p.sha256"
                " WHERE pages_fts MATCH ? AND (f.folder = ? OR f.folder LIKE ? ESCAPE '\\')"
                " ORDER BY bm25(pages_fts) LIMIT ?"
            )
            args = [expr, folder, _like_prefix(folder) + "/%", limit * 5]
        else:
            sql = (
                "WITH top AS (SELECT rowid AS id, rank FROM pages_fts WHERE pages_fts MATCH ?"
                " ORDER BY rank LIMIT ?)"
                " SELECT f.path, p.page, -top.rank, p.id FROM top JOIN pages p ON p.id = top.id"
                " JOIN files f ON f.sha256 = p.sha256 ORDER BY top.rank"
            )
            args = [expr, limit * 5]
        conn = self.reader()
        best: dict[str, tuple[str, int, float, int]] = {}
        for path, page, score, page_id in conn.execute(sql, args):
            if path not in best:
                best[path] = (path, int(page), float(score), int(page_id))
        chosen = list(best.values())[:limit]
        marks = ",".join("?" * len(chosen))
        bodies = dict(
            conn.execute(
                f"SELECT id, body FROM pages WHERE id IN ({marks})", [c[3] for c in chosen]
            )
        )
        return [PageHit(path, page, score, bodies.get(i, "")) for path, page, score, i in chosen]


_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? LIMIT ?)"


def _like_prefix(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _delete_text(tx: sqlite3.Connection, sha256: str) -> None:
    rows = tx.execute("SELECT id, body FROM pages WHERE sha256=?", (sha256,)).fetchall()
    for rowid, body in rows:
        tx.execute(
            "INSERT INTO pages_fts(pages_fts, rowid, body) VALUES('delete', ?, ?)", (rowid, body)
        )
    tx.execute("DELETE FROM pages WHERE sha256=?", (sha256,))
    tx.execute("DELETE FROM texts WHERE sha256=?", (sha256,))
