"""The owner's administration as use-cases: grants and access requests (in the ledger), and
callers with their tokens (in the tokens file). Every operation needs the ``admin`` scope.

The CLI's owner commands speak to the same stores directly on the owner's machine; the HTTP
API reaches them only through here, so a token holder without ``admin`` can do none of it.
"""

from __future__ import annotations

from hoard.adapters.ledger.store import AccessRequest
from hoard.app.callers import CallerFile, require_known_caller
from hoard.app.deps import Deps
from hoard.core.admin_results import (
    AccessRequestInfo,
    CallerInfo,
    CallersResult,
    GrantInfo,
    GrantsResult,
    NewTokenResult,
    RevokedResult,
)
from hoard.core.errors import InvalidArgument
from hoard.core.policy import Caller, Grant
from hoard.core.times import iso

DEFAULT_GRANT_MINUTES = 60.0


def grant_info(g: Grant) -> GrantInfo:
    return GrantInfo(g.grant_id, g.caller, g.glob, iso(g.expires_at))


def request_info(r: AccessRequest) -> AccessRequestInfo:
    return AccessRequestInfo(
        request_id=r.request_id,
        caller=r.caller,
        glob=r.glob,
        reason=r.reason,
        created_at=iso(r.created_at),
    )


class Admin:
    """Grants: list them with the pending requests, revoke, approve a request (issuing one
    names a caller, which :class:`TokenAdmin` checks against the tokens file)."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    def grants(self, *, caller: Caller) -> GrantsResult:
        self.deps.access.require("admin", caller=caller)
        ledger = self.deps.ledger
        return GrantsResult(
            [grant_info(g) for g in ledger.active_grants()],
            [request_info(r) for r in ledger.pending_requests()],
        )

    def revoke_grant(self, grant_id: str, *, caller: Caller) -> RevokedResult:
        self.deps.access.require("admin", caller=caller)
        self.deps.ledger.revoke_grant(grant_id)
        return RevokedResult(grant_id)

    def approve(
        self, request_id: str, minutes: float = DEFAULT_GRANT_MINUTES, *, caller: Caller
    ) -> GrantInfo:
        self.deps.access.require("admin", caller=caller)
        if not 0 < minutes <= 7 * 24 * 60:
            raise InvalidArgument("minutes must be between 0 and 10080 (one week)")
        return grant_info(self.deps.ledger.approve_request(request_id, minutes))


class TokenAdmin:
    """Callers and their tokens in the tokens file the server verifies against, and grants
    to them."""

    def __init__(self, deps: Deps, store: CallerFile) -> None:
        self.deps = deps
        self.store = store

    def callers(self, *, caller: Caller) -> CallersResult:
        self.deps.access.require("admin", caller=caller)
        return CallersResult(
            [
                CallerInfo(
                    name=e.name,
                    scopes=list(e.scopes),
                    write_mode=e.write_mode,
                    confirm_own=e.confirm_own,
                    read=list(e.read_globs),
                    write=list(e.write_globs),
                )
                for e in self.store.entries()
            ]
        )

    def add(
        self,
        name: str,
        scopes: str,
        write_mode: str,
        confirm_own: bool = False,
        read: str = "",
        write: str = "",
        *,
        caller: Caller,
    ) -> NewTokenResult:
        """A new caller; the token is in the result this once, only its digest is kept.
        ``read``/``write``: comma-separated folder globs it is limited to (empty: none)."""
        self.deps.access.require("admin", caller=caller)
        entry, token = self.store.add(name, scopes, write_mode, confirm_own, read, write)
        return NewTokenResult(
            name=entry.name,
            token=token,
            scopes=list(entry.scopes),
            write_mode=entry.write_mode,
            confirm_own=entry.confirm_own,
            read=list(entry.read_globs),
            write=list(entry.write_globs),
        )

    def grant(
        self, to: str, glob: str, minutes: float = DEFAULT_GRANT_MINUTES, *, caller: Caller
    ) -> GrantInfo:
        """A grant to a caller the tokens file knows (or the local caller); a name nobody
        holds is refused."""
        self.deps.access.require("admin", caller=caller)
        require_known_caller(self.store, to)
        return grant_info(self.deps.ledger.add_grant(to, glob, minutes))

    def revoke(self, name: str, *, caller: Caller) -> RevokedResult:
        self.deps.access.require("admin", caller=caller)
        self.store.revoke(name)
        return RevokedResult(name)
