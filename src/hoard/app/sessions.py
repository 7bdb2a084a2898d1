"""The owner's web sessions: sign-in with an ``admin`` token or a one-time code, lookup by
cookie, sign-out, listing and revocation. A session stands for the vault owner (it sees
protected notes and writes directly), and dies with the token that opened it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hoard.adapters.sessions import SessionRow, SessionStore
from hoard.app.callers import CallerFile
from hoard.app.deps import Deps
from hoard.core.errors import Forbidden, NotFound
from hoard.core.policy import OWNER, Caller

SESSION_TTL_SECONDS = 12 * 3600
CODE_TTL_SECONDS = 15 * 60
LINK_CALLER = "sign-in-link"
"""The session owner's name when it signed in with the link ``hoard serve`` printed."""


@dataclass(frozen=True, slots=True)
class Session:
    row: SessionRow
    caller: Caller


class Sessions:
    def __init__(
        self, deps: Deps, store: SessionStore, tokens: CallerFile, *, private_writes: bool
    ) -> None:
        self.deps = deps
        self.store = store
        self.tokens = tokens
        self.private_writes = private_writes
        """Whether the owner's sessions may change private notes: only when the server is
        bound to loopback with no public address (nobody else reaches the web app)."""

    def sign_in(self, token: str, agent: str) -> tuple[str, Session]:
        """A new session for an ``admin`` token: ``(cookie secret, session)``."""
        caller = self.tokens.verify(token.strip()) if token.strip() else None
        if caller is None or not caller.has("admin"):
            raise Forbidden("that is not a token with the admin scope")
        return self._open(caller.name, agent)

    def sign_in_with_code(self, code: str, agent: str) -> tuple[str, Session]:
        if not self.store.redeem_code(code):
            raise Forbidden("this sign-in link has expired or was used already")
        return self._open(LINK_CALLER, agent)

    def issue_code(self, ttl_seconds: float = CODE_TTL_SECONDS) -> str:
        return self.store.add_code(ttl_seconds)

    def current(self, secret: str) -> Session | None:
        """The live session of a cookie; ``None`` when expired, revoked, or its token is gone
        or lost the admin scope."""
        row = self.store.find(secret)
        if row is None:
            return None
        if row.caller != LINK_CALLER:
            entry = self.tokens.find(row.caller)
            if entry is None or "admin" not in entry.scopes:
                return None
        return Session(row, self._caller())

    def sign_out(self, secret: str) -> None:
        self.store.revoke_secret(secret)

    def active(self) -> list[SessionRow]:
        return self.store.active()

    def revoke(self, session_id: str) -> None:
        if not self.store.revoke(session_id):
            raise NotFound(f"no active session {session_id!r}", session_id=session_id)

    def _open(self, name: str, agent: str) -> tuple[str, Session]:
        secret, row = self.store.create(name, agent, SESSION_TTL_SECONDS)
        return secret, Session(row, self._caller())

    def _caller(self) -> Caller:
        """The owner, named as at the CLI whichever way the session was opened (an admin
        token or the one-time link): the activity log has one name for one person. The
        session's row keeps how it was opened. On a server nobody else can reach, the
        session may also change private notes."""
        return replace(OWNER, private_writes=self.private_writes)
