"""OAuth state: registered clients, pending authorization requests, authorization codes
and issued tokens, in ``oauth.db`` of the state folder or in the shared store of a vault's
replicas (component ``oauth``), so a sign-in started on one replica finishes on any other and
a code is redeemed once across all of them.

Codes and tokens are stored as SHA-256 digests only, like the tokens file: a copy of the
rows gives nobody a working credential. Every row of a code or token names the *grant*
it came from (one consent of the owner) and the caller entry it is bound to (the entry's
name and digest: a caller revoked and added again under the same name is a different
entry).

A refresh token retired by rotation is kept, marked ``rotated`` (not only revoked): presented
again, it is a replay, and the whole grant it came from is revoked (refresh-token rotation as
OAuth 2.1 and RFC 9700 describe it). The schema is versioned (numbered migrations); an
older file is upgraded when opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from typing import Any

from hoard.adapters.store.sql import Database
from hoard.adapters.store.sqlite_db import SqliteDatabase
from hoard.core.oauth_records import IssuedToken, StoredCode

MIGRATIONS: tuple[str, ...] = (
    # 1: the tables (``IF NOT EXISTS``: a file made before the schema was numbered has them,
    # and its tokens gain ``rotated``, as such a file always did at schema 1)
    """
    CREATE TABLE IF NOT EXISTS clients (
      client_id TEXT PRIMARY KEY, info TEXT NOT NULL, created_at REAL NOT NULL
    );
    CREATE TABLE IF NOT EXISTS requests (
      request_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, params TEXT NOT NULL,
      expires_at REAL NOT NULL
    );
    CREATE TABLE IF NOT EXISTS codes (
      digest TEXT PRIMARY KEY, grant_id TEXT NOT NULL, client_id TEXT NOT NULL,
      record TEXT NOT NULL, expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS tokens (
      digest TEXT PRIMARY KEY, kind TEXT NOT NULL, grant_id TEXT NOT NULL,
      client_id TEXT NOT NULL, caller TEXT NOT NULL, caller_digest TEXT NOT NULL,
      scopes TEXT NOT NULL, expires_at REAL NOT NULL, resource TEXT,
      revoked INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS tokens_grant ON tokens (grant_id);
    ALTER TABLE tokens ADD COLUMN rotated INTEGER NOT NULL DEFAULT 0
    """,
)
"""Each step from one schema version to the next."""

GRANTS_FILE = "oauth.db"
TABLES = ("clients", "requests", "codes", "tokens")
"""The tables of this component, for copying a state folder into a shared store."""

TOKEN_COLUMNS = "kind, grant_id, client_id, caller, caller_digest, scopes, expires_at, resource"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _issued(row: tuple[Any, ...]) -> IssuedToken:
    return IssuedToken(
        kind=str(row[0]),
        grant_id=str(row[1]),
        client_id=str(row[2]),
        caller=str(row[3]),
        caller_digest=str(row[4]),
        scopes=tuple(str(row[5]).split()),
        expires_at=float(row[6]),
        resource=row[7],
    )


class OAuthStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        if isinstance(db, SqliteDatabase):  # the owner's file, like the tokens file
            with contextlib.suppress(OSError):
                os.chmod(db.path, 0o600)

    def close(self) -> None:
        self.db.close()

    # -- clients ----------------------------------------------------------------------------

    def save_client(self, client_id: str, info: str) -> None:
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO clients(client_id, info, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(client_id) DO UPDATE SET info = excluded.info, "
                "created_at = excluded.created_at",
                (client_id, info, time.time()),
            )

    def client(self, client_id: str) -> str | None:
        with self.db.read() as db:
            row = db.execute(
                "SELECT info FROM clients WHERE client_id = ?", (client_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    # -- pending authorization requests (waiting for the owner's consent) -----------------------

    def save_request(
        self, request_id: str, client_id: str, params: dict[str, Any], ttl: float
    ) -> None:
        now = time.time()
        with self.db.transaction() as db:
            db.execute("DELETE FROM requests WHERE expires_at < ?", (now,))
            db.execute(
                "INSERT INTO requests(request_id, client_id, params, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (request_id, client_id, json.dumps(params), now + ttl),
            )

    def request(self, request_id: str, take: bool = False) -> tuple[str, dict[str, Any]] | None:
        """The client and parameters of a live pending request; ``take`` removes it (so of
        two replicas answering one request at once, one gets it)."""
        if not take:
            with self.db.read() as db:
                row = db.execute(
                    "SELECT client_id, params, expires_at FROM requests WHERE request_id = ?",
                    (request_id,),
                ).fetchone()
        else:
            with self.db.transaction() as db:
                taken = db.execute(
                    "DELETE FROM requests WHERE request_id = ? "
                    "RETURNING client_id, params, expires_at",
                    (request_id,),
                ).fetchall()
            row = taken[0] if taken else None
        if row is None or float(row[2]) < time.time():
            return None
        return str(row[0]), json.loads(row[1])

    # -- authorization codes -------------------------------------------------------------------

    def save_code(
        self, code: str, grant_id: str, client_id: str, record: dict[str, Any], expires_at: float
    ) -> None:
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO codes(digest, grant_id, client_id, record, expires_at, used) "
                "VALUES (?, ?, ?, ?, ?, 0)",
                (digest(code), grant_id, client_id, json.dumps(record), expires_at),
            )

    def code(self, code: str) -> StoredCode | None:
        with self.db.read() as db:
            row = db.execute(
                "SELECT grant_id, client_id, record, expires_at, used FROM codes WHERE digest = ?",
                (digest(code),),
            ).fetchone()
        if row is None:
            return None
        return StoredCode(
            grant_id=str(row[0]),
            client_id=str(row[1]),
            record=json.loads(row[2]),
            expires_at=float(row[3]),
            used=bool(row[4]),
        )

    def use_code(self, code: str) -> bool:
        """Mark a code used; ``False`` when it already was (a replay) or does not exist."""
        with self.db.transaction() as db:
            cur = db.execute(
                "UPDATE codes SET used = 1 WHERE digest = ? AND used = 0", (digest(code),)
            )
            return cur.rowcount == 1

    # -- tokens --------------------------------------------------------------------------------

    def save_token(self, token: str, issued: IssuedToken) -> None:
        with self.db.transaction() as db:
            db.execute(
                f"INSERT INTO tokens (digest, {TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    digest(token),
                    issued.kind,
                    issued.grant_id,
                    issued.client_id,
                    issued.caller,
                    issued.caller_digest,
                    " ".join(issued.scopes),
                    issued.expires_at,
                    issued.resource,
                ),
            )

    def token(self, token: str, kind: str) -> IssuedToken | None:
        """A live (unrevoked, unexpired) token of ``kind``."""
        return self._one("kind = ? AND revoked = 0 AND expires_at >= ?", token, kind, time.time())

    def rotated(self, token: str) -> IssuedToken | None:
        """A refresh token that was retired by rotation (presented again, it is a replay)."""
        return self._one("kind = 'refresh' AND rotated = 1", token)

    def issued(self, token: str) -> IssuedToken | None:
        """Any token this store issued, live or not (who it belongs to)."""
        return self._one("TRUE", token)

    def _one(self, where: str, token: str, *args: object) -> IssuedToken | None:
        """The token with this secret's digest, if it also meets ``where``."""
        with self.db.read() as db:
            row = db.execute(
                f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE digest = ? AND {where}",
                (digest(token), *args),
            ).fetchone()
        return None if row is None else _issued(row)

    def revoke_grant(self, grant_id: str) -> int:
        """Revoke every token of one grant; the number revoked."""
        with self.db.transaction() as db:
            cur = db.execute(
                "UPDATE tokens SET revoked = 1 WHERE grant_id = ? AND revoked = 0", (grant_id,)
            )
            db.execute("DELETE FROM tokens WHERE expires_at < ?", (time.time() - 86400,))
            return cur.rowcount

    def retire_token(self, token: str) -> bool:
        """Retire a refresh token as it rotates (revoked and marked ``rotated``); ``False`` if
        it was not live."""
        with self.db.transaction() as db:
            cur = db.execute(
                "UPDATE tokens SET revoked = 1, rotated = 1 WHERE digest = ? AND revoked = 0",
                (digest(token),),
            )
            return cur.rowcount == 1

    def revoke_grant_of(self, token: str) -> int:
        """Revoke every token of the grant ``token`` belongs to (RFC 7009: revoking either
        token of a pair revokes both)."""
        with self.db.transaction() as db:
            row = db.execute(
                "SELECT grant_id FROM tokens WHERE digest = ?", (digest(token),)
            ).fetchone()
            if row is None:
                return 0
            cur = db.execute(
                "UPDATE tokens SET revoked = 1 WHERE grant_id = ? AND revoked = 0", (row[0],)
            )
            return cur.rowcount
