"""What hoard's OAuth issuer keeps between the steps of a sign-in, as the surfaces see it.

The OAuth provider (the MCP SDK's authorization-server interface, in
``surfaces/oauth``) decides; it keeps registered clients, pending consent requests,
authorization codes and issued tokens in a :class:`GrantStore` that :func:`open_grants`
returns (the port; :class:`~hoard.adapters.oauth_store.OAuthStore` is the adapter behind it,
``oauth.db`` in the state folder or the shared store of a vault's replicas). Secrets are kept
only as digests.

Two decisions live here rather than in the provider, so every surface makes them alike:
what a replayed rotated refresh token does (:meth:`GrantAudit.refresh_replayed`: the grant's
every token is revoked and the owner's Activity page says so) and what a revocation request
of a client may revoke (:func:`revoke_for_client`: only a token issued to that client).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol

from hoard.adapters.ledger.records import Records
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.oauth_store import GRANTS_FILE, MIGRATIONS, OAuthStore
from hoard.adapters.store.shared import SharedStore
from hoard.core.oauth_records import IssuedToken, StoredCode


class GrantStore(Protocol):
    def save_client(self, client_id: str, info: str) -> None: ...

    def client(self, client_id: str) -> str | None: ...

    def save_request(
        self, request_id: str, client_id: str, params: dict[str, Any], ttl: float
    ) -> None: ...

    def request(self, request_id: str, take: bool = False) -> tuple[str, dict[str, Any]] | None:
        """A pending consent request (``take``: and forget it, so it is answered once)."""

    def save_code(
        self, code: str, grant_id: str, client_id: str, record: dict[str, Any], expires_at: float
    ) -> None: ...

    def code(self, code: str) -> StoredCode | None: ...

    def use_code(self, code: str) -> bool:
        """Mark a code used; ``False`` when it already was (a replay)."""

    def save_token(self, token: str, issued: IssuedToken) -> None: ...

    def token(self, token: str, kind: str) -> IssuedToken | None: ...

    def rotated(self, token: str) -> IssuedToken | None:
        """A refresh token retired by rotation (presented again, it is a replay)."""

    def issued(self, token: str) -> IssuedToken | None:
        """Any token issued here, live or not."""

    def revoke_grant(self, grant_id: str) -> int: ...

    def retire_token(self, token: str) -> bool:
        """Retire a refresh token as it rotates; ``False`` when it was not live."""

    def revoke_grant_of(self, token: str) -> int: ...

    def close(self) -> None: ...


def open_grants(shared: SharedStore) -> GrantStore:
    """The issuer's store: ``oauth.db`` of the state folder (made on first use, readable by
    the owner only), or the ``oauth`` tables of the replicas' shared store."""
    return OAuthStore(shared.database("oauth", MIGRATIONS, GRANTS_FILE))


REUSE_TOOL = "oauth_refresh_reuse"
"""The ledger event's ``tool`` when a rotated refresh token comes back."""


class GrantAudit:
    """The issuer's security events, written to the ledger the owner's Activity page shows."""

    def __init__(self, store: GrantStore, ledger: Ledger | None = None) -> None:
        self.store = store
        self.records = None if ledger is None else Records(ledger)

    def refresh_replayed(self, token: str, presented_by: str) -> IssuedToken | None:
        """If ``token`` is a refresh token already retired by rotation, it was copied: revoke
        every token of its grant (the legitimate client's newer ones too: which of the two
        holders is the thief cannot be told), record it, and return what it was; else
        ``None``. The event is credited to the caller the grant acts as."""
        issued = self.store.rotated(token)
        if issued is None:
            return None
        revoked = self.store.revoke_grant(issued.grant_id)
        if self.records is not None:
            reason = (
                f"a refresh token already used was presented again (by OAuth client "
                f"{presented_by}; issued to {issued.client_id}): every token of grant "
                f"{issued.grant_id} is revoked ({revoked} live); the client signs in again"
            )
            self.records.event(REUSE_TOOL, issued.caller, None, None, None, "grant revoked", reason)
        return issued


class Revocation(Enum):
    REVOKED = "revoked"
    UNKNOWN = "unknown"
    OTHER_CLIENT = "other client"


def revoke_for_client(store: GrantStore, client_id: str, token: str) -> Revocation:
    """Revoke ``token`` and every token of its grant (either token of a pair revokes both),
    if it was issued to ``client_id``. A token unknown here (or already dead) is
    ``UNKNOWN``; one issued to another client is ``OTHER_CLIENT`` and stays as it is."""
    issued = store.issued(token)
    if issued is None:
        return Revocation.UNKNOWN
    if issued.client_id != client_id:
        return Revocation.OTHER_CLIENT
    store.revoke_grant_of(token)
    return Revocation.REVOKED
