"""Building a fresh index file from the vault (the body of a full rebuild; the caller swaps
the finished file in)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from hoard.adapters.fs.vault import FileStat, Vault
from hoard.adapters.index.parallel import prepared_notes
from hoard.adapters.index.rows import insert_prepared
from hoard.adapters.index.schema import SCHEMA
from hoard.core.config import Config


def build_file(
    tmp: Path,
    vault: Vault,
    config: Config,
    fingerprint: str,
    stats: list[FileStat],
    workers: int | None,
    progress: Callable[[int, int], None] | None,
) -> int:
    """Write a complete index of ``stats`` into the new file ``tmp``; the number of notes
    that failed to parse."""
    conn = sqlite3.connect(tmp, isolation_level=None)
    failed = 0
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(SCHEMA)
        conn.execute("BEGIN")
        conn.execute("INSERT INTO meta VALUES('fingerprint', ?)", (fingerprint,))
        conn.execute("INSERT INTO meta VALUES('built_at', ?)", (str(time.time()),))
        notes = prepared_notes(vault, config, stats, workers)
        for i, note in enumerate(notes):
            if note is None:
                failed += 1
            else:
                insert_prepared(conn, note, fresh=True)
            if progress is not None and (i % 256 == 0 or i + 1 == len(stats)):
                progress(i + 1, len(stats))
        conn.execute(
            "INSERT INTO words(rowid, title, body) SELECT rowid, title, body FROM notes_fts"
        )
        conn.execute(
            "INSERT INTO titles(rowid, title, tags) SELECT rowid, title, tags FROM notes_fts"
        )
        conn.execute("COMMIT")
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES('optimize')")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    return failed
