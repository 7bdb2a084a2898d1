"""What hoard's OAuth issuer keeps between the steps of a sign-in, as the surfaces see it.

The OAuth provider (the MCP SDK's authorization-server interface, in
``surfaces/oauth``) decides; it keeps registered clients, pending consent requests,
authorization codes and issued tokens in a :class:`GrantStore` that :func:`open_grants`
returns (the port; :class:`~hoard.adapters.oauth_store.OAuthStore` is the adapter behind it,
one SQLite file in the state folder). Secrets are kept only as digests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from hoard.adapters.oauth_store import OAuthStore
from hoard.core.oauth_records import IssuedToken, StoredCode

GRANTS_FILE = "oauth.db"


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

    def revoke_grant(self, grant_id: str) -> int: ...

    def retire_token(self, token: str) -> bool: ...

    def revoke_grant_of(self, token: str) -> int: ...


def open_grants(state_dir: Path) -> GrantStore:
    """The issuer's store in ``state_dir`` (made on first use, readable by the owner only)."""
    return OAuthStore(state_dir / GRANTS_FILE)
