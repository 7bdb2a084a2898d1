"""The web app's sign-in state, ``web.db`` in the state folder: owner sessions and one-time
sign-in codes. Only SHA-256 digests of session ids and codes are stored, so a copy of the
file signs nobody in. Sessions expire and can be revoked; a code is good once, briefly.

This is not the ledger: nothing here is history, and deleting the file signs everyone out.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
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
"""


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


class SessionStore:
    """Sessions and sign-in codes in one small SQLite file, one writer under a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        for stmt in (s.strip() for s in SCHEMA.split(";")):
            if stmt:
                self._conn.execute(stmt)
        path.chmod(0o600)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def create(self, caller: str, agent: str, ttl_seconds: float) -> tuple[str, SessionRow]:
        """A new session: the secret for the cookie (shown once) and its row."""
        secret = secrets.token_urlsafe(32)
        now = time.time()
        digest = _digest(secret)
        row = SessionRow(
            digest[:16], caller, secrets.token_urlsafe(24), agent[:200], now, now + ttl_seconds
        )
        with self._lock:
            self._conn.execute(
                "INSERT INTO sessions(digest, caller, csrf, agent, created_at, expires_at) "
                "VALUES(?,?,?,?,?,?)",
                (digest, row.caller, row.csrf, row.agent, row.created_at, row.expires_at),
            )
        return secret, row

    def find(self, secret: str) -> SessionRow | None:
        """The live session a cookie names, or ``None`` (unknown, expired or revoked)."""
        if not secret:
            return None
        with self._lock:
            r = self._conn.execute(
                "SELECT digest, caller, csrf, agent, created_at, expires_at FROM sessions "
                "WHERE digest = ? AND revoked_at IS NULL AND expires_at > ?",
                (_digest(secret), time.time()),
            ).fetchone()
        return SessionRow(r[0][:16], *r[1:]) if r else None

    def active(self) -> list[SessionRow]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT digest, caller, csrf, agent, created_at, expires_at FROM sessions "
                "WHERE revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC",
                (time.time(),),
            ).fetchall()
        return [SessionRow(r[0][:16], *r[1:]) for r in rows]

    def revoke(self, session_id: str) -> bool:
        """Revoke by public handle (16 hex digits); ``False`` when nothing matched."""
        if len(session_id) != 16 or any(c not in "0123456789abcdef" for c in session_id):
            return False
        with self._lock:
            cur = self._conn.execute(
                "UPDATE sessions SET revoked_at = ? WHERE substr(digest, 1, 16) = ? "
                "AND revoked_at IS NULL",
                (time.time(), session_id),
            )
        return cur.rowcount > 0

    def revoke_secret(self, secret: str) -> None:
        with self._lock:
            self._conn.execute(
                "UPDATE sessions SET revoked_at = ? WHERE digest = ? AND revoked_at IS NULL",
                (time.time(), _digest(secret)),
            )

    def add_code(self, ttl_seconds: float) -> str:
        """A one-time sign-in code (for the link ``hoard serve`` prints)."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._conn.execute(
                "INSERT INTO signin_codes(digest, expires_at) VALUES(?,?)",
                (_digest(code), time.time() + ttl_seconds),
            )
        return code

    def redeem_code(self, code: str) -> bool:
        """Use a code up: ``True`` once for a live code, ``False`` ever after."""
        if not code:
            return False
        with self._lock:
            cur = self._conn.execute(
                "UPDATE signin_codes SET used_at = ? WHERE digest = ? AND used_at IS NULL "
                "AND expires_at > ?",
                (time.time(), _digest(code), time.time()),
            )
        return cur.rowcount > 0
