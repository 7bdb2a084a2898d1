"""Fixtures for the pure-core tests (no vault, no service: only the functions under test)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

FTS_COLUMNS = ("path", "title", "tags", "body", "frontmatter", "alt", "title_seg", "body_seg")


@pytest.fixture(scope="session")
def fts_db() -> Iterator[sqlite3.Connection]:
    """An in-memory FTS5 table shaped like hoard's index, with a few rows to match against.

    Session-scoped so Hypothesis tests can use it (it is only ever read)."""
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE notes_fts USING fts5("
        + ", ".join(FTS_COLUMNS)
        + ", tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    rows = [
        ("tech/hue-bridge.md", "Hue bridge", "home networking", "The bridge talks Zigbee.", "", ""),
        ("tech/e-mail.md", "E-mail setup", "mail", "It's how C++ people send e-mail.", "", ""),
        ("life/mad.md", "Smørrebrød", "food", "Smørrebrød i Århus.", "", "smoerrebroed aarhus"),
    ]
    db.executemany("INSERT INTO notes_fts VALUES (?, ?, ?, ?, ?, ?, '', '')", rows)
    db.commit()
    yield db
    db.close()
