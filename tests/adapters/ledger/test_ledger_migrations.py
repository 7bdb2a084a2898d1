"""The ledger's schema moves forward by numbered migrations and never loses a row."""

import sqlite3
from pathlib import Path

import pytest

from hoard.adapters.ledger.store import MIGRATIONS, Ledger
from hoard.core.errors import IoError


def _ledger_at(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:version]:
        conn.executescript(script)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def test_an_older_ledger_is_migrated_forward_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    _ledger_at(path, 2)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO events(at, tool, caller, path, before, after, decision, reason) "
        "VALUES(1.0, 'vault_write', 'owner', 'a.md', NULL, 'x', 'written', NULL)"
    )
    conn.commit()
    conn.close()

    ledger = Ledger.open_file(path)
    try:
        assert ledger.schema_version == len(MIGRATIONS)
        with ledger.read() as c:
            rows = c.execute("SELECT path, decision, intent_id FROM events").fetchall()
        assert rows == [("a.md", "written", None)]
    finally:
        ledger.close()


def test_a_ledger_from_a_newer_hoard_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    _ledger_at(path, len(MIGRATIONS))
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.commit()
    conn.close()
    before = path.read_bytes()

    with pytest.raises(IoError):
        Ledger.open_file(path)

    assert path.read_bytes() == before


def test_a_relaxed_transaction_commits_and_puts_full_sync_back(tmp_path: Path) -> None:
    ledger = Ledger.open_file(tmp_path / "ledger.db")
    try:
        with ledger.transaction(durable=False) as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
            conn.execute(
                "INSERT INTO events(at, tool, caller, path, decision) VALUES(0, 't', 'c', 'p', 'x')"
            )
        with ledger.read() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
            assert conn.execute("SELECT count(*) FROM events WHERE tool='t'").fetchone()[0] == 1
        with pytest.raises(RuntimeError), ledger.transaction(durable=False):
            raise RuntimeError("rolled back")
        with ledger.read() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    finally:
        ledger.close()
