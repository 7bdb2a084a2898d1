"""The OAuth issuer's SQLite store: a file of the earlier schema is upgraded in place, and a
refresh token retired by rotation is told apart from one that was revoked."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from hoard.adapters.oauth_store import MIGRATIONS, OAuthStore, digest
from hoard.adapters.store.sqlite_db import SqliteDatabase
from hoard.core.oauth_records import IssuedToken

EARLIER_TOKENS = """
CREATE TABLE tokens (
  digest TEXT PRIMARY KEY, kind TEXT NOT NULL, grant_id TEXT NOT NULL, client_id TEXT NOT NULL,
  caller TEXT NOT NULL, caller_digest TEXT NOT NULL, scopes TEXT NOT NULL,
  expires_at REAL NOT NULL, resource TEXT, revoked INTEGER NOT NULL DEFAULT 0
);
"""


def opened(path: Path) -> OAuthStore:
    return OAuthStore(SqliteDatabase(path, MIGRATIONS))


def issued(kind: str, grant: str) -> IssuedToken:
    return IssuedToken(
        kind=kind,
        grant_id=grant,
        client_id="client",
        caller="web",
        caller_digest="d",
        scopes=("read",),
        expires_at=time.time() + 60,
        resource=None,
    )


def test_a_store_of_the_earlier_schema_is_upgraded_and_keeps_its_tokens(tmp_path: Path) -> None:
    path = tmp_path / "oauth.db"
    with sqlite3.connect(path) as db:
        db.executescript(EARLIER_TOKENS)
        db.execute(
            "INSERT INTO tokens VALUES (?, 'refresh', 'g1', 'client', 'web', 'd', 'read', ?, "
            "NULL, 0)",
            (digest("old-refresh"), time.time() + 60),
        )
    db.close()
    store = opened(path)
    kept = store.token("old-refresh", "refresh")
    assert kept is not None and kept.grant_id == "g1" and kept.scopes == ("read",)
    assert store.rotated("old-refresh") is None
    assert store.retire_token("old-refresh")
    assert store.token("old-refresh", "refresh") is None
    rotated = store.rotated("old-refresh")
    assert rotated is not None and rotated.grant_id == "g1"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    db.close()
    assert opened(path).rotated("old-refresh") == rotated  # opened again: nothing changes


def test_a_rotated_refresh_token_is_told_apart_from_a_revoked_one(tmp_path: Path) -> None:
    store = opened(tmp_path / "oauth.db")
    store.save_token("spent", issued("refresh", "g1"))
    store.save_token("revoked", issued("refresh", "g2"))
    store.save_token("access", issued("access", "g2"))
    assert store.retire_token("spent")
    assert not store.retire_token("spent")  # retired once only
    assert store.revoke_grant_of("revoked") == 2
    assert store.rotated("spent") is not None
    assert store.rotated("revoked") is None
    assert store.rotated("access") is None
    # Either way the token is no longer live, but the store still knows whose it was.
    for token in ("spent", "revoked", "access"):
        assert store.token(token, "refresh") is None
        known = store.issued(token)
        assert known is not None and known.client_id == "client"
    assert store.issued("never-issued") is None
