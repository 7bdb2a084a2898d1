"""The web app's sign-in state: owner sessions and one-time sign-in codes, in ``web.db`` of
the state folder or in the shared store of a vault's replicas (component ``sessions``), so a
session opened on one replica is good on every other and a code is used once across all of
them. Only SHA-256 digests of session ids and codes are stored, so a copy of the rows signs
nobody in. Sessions expire and can be revoked; a code is good once, briefly.

This is not the ledger: nothing here is history, and deleting the file signs everyone out.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any

from hoard.adapters.store.sql import Database
from hoard.adapters.store.sqlite_db import SqliteDatabase

MIGRATIONS: tuple[str, ...] = (
    # 1: sessions and sign-in codes (``IF NOT EXISTS``: a file made before the schema was
    # numbered has them already, and is taken as it is)
    """
    CREATE TABLE IF NOT EXISTS sessions(
      digest TEXT PRIMARY KEY,
      caller TEXT NOT NULL,
      csrf TEXT NOT NULL,
      agent TEXT NOT NULL,
      created_at REAL NOT NULL,
      expires_at REAL NOT NULL,
      revoked_at REAL
    );
    CREATE TABLE IF NOT EXISTS signin_codes(
      digest TEXT PRIMARY KEY,
      expires_at REAL NOT NULL,
      used_at REAL
    );
    """,
)
"""Each step from one schema version to the next."""

SESSIONS_FILE = "web.db"
TABLES = ("sessions", "signin_codes")
"""The tables of this component, for copying a state folder into a shared store."""

_COLUMNS = "digest, caller, csrf, agent, created_at, expires_at"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SessionRow:
    session_id: str
    """A public handle (a prefix of the digest): listed and revoked by it, useless as a cookie."""
    caller: str
    csrf: str
    agent: str
    created_at: float
    expires_at: float


def _row(r: Any) -> SessionRow:
    return SessionRow(
        session_id=str(r[0])[:16],
        caller=r[1],
        csrf=r[2],
        agent=r[3],
        created_at=float(r[4]),
        expires_at=float(r[5]),
    )


class SessionStore:
    """Sessions and sign-in codes in one :class:`Database` (see the module's docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        if isinstance(db, SqliteDatabase):  # the owner's file, like the tokens file
            with contextlib.suppress(OSError):
                os.chmod(db.path, 0o600)

    def close(self) -> None:
        self.db.close()

    def create(self, caller: str, agent: str, ttl_seconds: float) -> tuple[str, SessionRow]:
        """A new session: the secret for the cookie (shown once) and its row."""
        secret = secrets.token_urlsafe(32)
        now = time.time()
        digest = _digest(secret)
        row = SessionRow(
            session_id=digest[:16],
            caller=caller,
            csrf=secrets.token_urlsafe(24),
            agent=agent[:200],
            created_at=now,
            expires_at=now + ttl_seconds,
        )
        with self.db.transaction() as conn:
            conn.execute(
                f"INSERT INTO sessions({_COLUMNS}) VALUES(?,?,?,?,?,?)",
                (digest, row.caller, row.csrf, row.agent, row.created_at, row.expires_at),
            )
        return secret, row

    def find(self, secret: str) -> SessionRow | None:
        """The live session a cookie names, or ``None`` (unknown, expired or revoked)."""
        if not secret:
            return None
        with self.db.read() as conn:
            r = conn.execute(
                f"SELECT {_COLUMNS} FROM sessions "
                "WHERE digest = ? AND revoked_at IS NULL AND expires_at > ?",
                (_digest(secret), time.time()),
            ).fetchone()
        return _row(r) if r else None

    def active(self) -> list[SessionRow]:
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM sessions "
                "WHERE revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC",
                (time.time(),),
            ).fetchall()
        return [_row(r) for r in rows]

    def revoke(self, session_id: str) -> bool:
        """Revoke by public handle (16 hex digits); ``False`` when nothing matched."""
        if len(session_id) != 16 or any(c not in "0123456789abcdef" for c in session_id):
            return False
        with self.db.transaction() as conn:
            cur = conn.execute(
                "UPDATE sessions SET revoked_at = ? WHERE substr(digest, 1, 16) = ? "
                "AND revoked_at IS NULL",
                (time.time(), session_id),
            )
            return cur.rowcount > 0

    def revoke_secret(self, secret: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET revoked_at = ? WHERE digest = ? AND revoked_at IS NULL",
                (time.time(), _digest(secret)),
            )

    def add_code(self, ttl_seconds: float) -> str:
        """A one-time sign-in code (for the link ``hoard serve`` prints)."""
        code = secrets.token_urlsafe(24)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO signin_codes(digest, expires_at) VALUES(?,?)",
                (_digest(code), time.time() + ttl_seconds),
            )
        return code

    def redeem_code(self, code: str) -> bool:
        """Use a code up: ``True`` once for a live code, ``False`` ever after (on every
        replica: the one update that finds it unused is the one that uses it)."""
        if not code:
            return False
        now = time.time()
        with self.db.transaction() as conn:
            cur = conn.execute(
                "UPDATE signin_codes SET used_at = ? WHERE digest = ? AND used_at IS NULL "
                "AND expires_at > ?",
                (now, _digest(code), now),
            )
            return cur.rowcount > 0
