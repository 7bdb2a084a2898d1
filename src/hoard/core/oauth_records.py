"""What the OAuth issuer keeps, as plain records: an issued token and an authorization code
(never the secret itself; the store keys both by digest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """An access or refresh token as stored (never the token itself)."""

    kind: str
    grant_id: str
    client_id: str
    caller: str
    caller_digest: str
    scopes: tuple[str, ...]
    expires_at: float
    resource: str | None


@dataclass(frozen=True, slots=True)
class StoredCode:
    """An authorization code as stored: its record (the SDK's fields plus the binding)."""

    grant_id: str
    client_id: str
    record: dict[str, Any]
    expires_at: float
    used: bool
