"""hoard as its own OAuth 2.1 authorization server: the SDK's provider interface over
:class:`~hoard.app.oauth_grants.GrantStore` and the tokens file.

The SDK's handlers do the protocol (metadata, registration, ``/authorize``, ``/token`` with
PKCE; ``/revoke`` is hoard's own, see :mod:`hoard.surfaces.oauth.routes`); this class
decides. Every grant comes from the owner's consent (see :mod:`hoard.surfaces.oauth.consent`),
which creates a caller entry in the tokens file with the scopes and write mode the owner
chose. Codes and tokens are bound to that entry (its name and
digest): remove the caller with ``hoard token revoke NAME`` and its OAuth tokens stop working
on the next request. Access tokens live an hour, refresh tokens 30 days and rotate on use,
codes 5 minutes and work once (a replayed code revokes what it was exchanged for). A refresh
token presented again after it rotated was copied: every token of its grant is revoked and the
owner's Activity page shows it (see :class:`~hoard.app.oauth_grants.GrantAudit`).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import urlsplit

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from hoard.app.callers import CallerFile
from hoard.app.oauth_grants import GrantAudit, GrantStore
from hoard.core.oauth_records import IssuedToken
from hoard.core.policy import Caller

log = logging.getLogger("hoard.oauth")

OAUTH_SCOPES = ("read", "write", "confirm", "maintenance")
"""What the owner may grant on the consent page (``admin`` never goes to an OAuth client)."""

ACCESS_TTL = 3600
REFRESH_TTL = 30 * 86400
CODE_TTL = 300
REQUEST_TTL = 900
ACCESS_PREFIX = "hoard_at_"
REFRESH_PREFIX = "hoard_rt_"
FORBIDDEN_SCHEMES = {"javascript", "data", "file", "vbscript", "about", "blob"}
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]", "::1"}


class HoardCode(AuthorizationCode):
    grant_id: str
    caller: str
    caller_digest: str


class HoardRefresh(RefreshToken):
    grant_id: str
    caller: str
    caller_digest: str


def redirect_problem(uri: str) -> str | None:
    """Why ``uri`` may not be registered as a redirect URI (OAuth 2.1 §2.3.1, RFC 8252), or
    ``None``: https anywhere, http only to a loopback host, or a native app's private-use
    scheme; never a fragment, never a scheme that runs code or reads files."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if parts.fragment:
        return f"{uri}: a redirect URI must not have a fragment"
    if scheme == "https":
        return None if parts.hostname else f"{uri}: no host"
    if scheme == "http":
        if (parts.hostname or "").lower() in LOOPBACK_NAMES:
            return None
        return f"{uri}: plain http is allowed only to a loopback host; use https"
    if not scheme or scheme in FORBIDDEN_SCHEMES:
        return f"{uri}: scheme {scheme or '(none)'!r} is not allowed"
    return None


class OwnerSignIn(Protocol):
    """The web app's owner sign-in, as the consent page sees it (see
    :class:`hoard.surfaces.web.owner_signin.WebOwner`)."""

    def owner(self, cookies: Mapping[str, str]) -> tuple[str, str] | None:
        """``(who, csrf token)`` of the owner signed in with these cookies, or ``None``."""

    def signin_url(self, next_path: str) -> str:
        """Where a signed-out owner signs in, coming back to ``next_path`` afterwards."""


class HoardOAuth:
    owner: OwnerSignIn | None
    """With the web app: the consent page asks its signed-in owner (no admin token)."""

    def __init__(
        self,
        store: GrantStore,
        tokens: CallerFile,
        issuer: str,
        resource: str,
        code_ttl: float = CODE_TTL,
        access_ttl: float = ACCESS_TTL,
        refresh_ttl: float = REFRESH_TTL,
        audit: GrantAudit | None = None,
    ) -> None:
        self.store = store
        self.audit = audit or GrantAudit(store)
        self.tokens = tokens
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.code_ttl = code_ttl
        self.access_ttl = access_ttl
        self.refresh_ttl = refresh_ttl
        self.owner = None

    # -- clients ---------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        info = self.store.client(client_id)
        return None if info is None else OAuthClientInformationFull.model_validate_json(info)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            problem = redirect_problem(str(uri))
            if problem is not None:
                raise RegistrationError("invalid_redirect_uri", problem)
        assert client_info.client_id is not None
        self.store.save_client(client_info.client_id, client_info.model_dump_json())

    # -- authorization: hand over to the owner's consent page ----------------------------------

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        if params.resource is not None and params.resource.rstrip("/") not in {
            self.resource.rstrip("/"),
            self.issuer,
        }:
            raise AuthorizeError("invalid_target", f"this server is {self.resource}")
        request_id = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.store.save_request(
            request_id, client.client_id, params.model_dump(mode="json"), REQUEST_TTL
        )
        return f"{self.issuer}/oauth/consent?request={request_id}"

    def grant_code(
        self, client_id: str, params: dict[str, Any], caller: Caller, digest: str
    ) -> str:
        """The owner consented: mint a one-time code bound to the new caller entry."""
        code = secrets.token_urlsafe(32)
        record = {
            "client_id": client_id,
            "scopes": sorted(caller.scopes),
            "code_challenge": params["code_challenge"],
            "redirect_uri": params["redirect_uri"],
            "redirect_uri_provided_explicitly": params["redirect_uri_provided_explicitly"],
            "resource": params.get("resource"),
            "subject": caller.name,
            "grant_id": secrets.token_hex(8),
            "caller": caller.name,
            "caller_digest": digest,
        }
        expires_at = time.time() + self.code_ttl
        self.store.save_code(code, record["grant_id"], client_id, record, expires_at)
        return code

    # -- codes and tokens ------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> HoardCode | None:
        stored = self.store.code(authorization_code)
        if stored is None or stored.client_id != client.client_id:
            return None
        if stored.used:
            revoked = self.store.revoke_grant(stored.grant_id)
            log.warning(
                "an authorization code was replayed; revoked %d tokens of its grant", revoked
            )
            return None
        return HoardCode.model_validate(
            {**stored.record, "code": authorization_code, "expires_at": stored.expires_at}
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: HoardCode
    ) -> OAuthToken:
        if not self.store.use_code(authorization_code.code):
            raise TokenError("invalid_grant", "authorization code was already used")
        code = authorization_code
        if self._entry_caller(code.caller, code.caller_digest) is None:
            raise TokenError("invalid_grant", "the caller this code was granted to was revoked")
        return self._issue(
            code.client_id,
            code.grant_id,
            code.caller,
            code.caller_digest,
            code.scopes,
            code.resource,
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> HoardRefresh | None:
        issued = self.store.token(refresh_token, "refresh")
        if issued is None:
            self._replayed(refresh_token, client)
            return None
        if issued.client_id != client.client_id:
            return None
        return HoardRefresh(
            token=refresh_token,
            client_id=issued.client_id,
            scopes=list(issued.scopes),
            expires_at=int(issued.expires_at),
            resource=issued.resource,
            subject=issued.caller,
            grant_id=issued.grant_id,
            caller=issued.caller,
            caller_digest=issued.caller_digest,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: HoardRefresh, scopes: list[str]
    ) -> OAuthToken:
        rt = refresh_token
        if self._entry_caller(rt.caller, rt.caller_digest) is None:
            self.store.revoke_grant(rt.grant_id)
            raise TokenError("invalid_grant", "the caller this token was granted to was revoked")
        if not self.store.retire_token(rt.token):  # a concurrent use rotated it meanwhile
            self._replayed(rt.token, client)
            raise TokenError("invalid_grant", "refresh token was already used")
        return self._issue(
            rt.client_id, rt.grant_id, rt.caller, rt.caller_digest, scopes, rt.resource
        )

    def _replayed(self, refresh_token: str, client: OAuthClientInformationFull) -> None:
        """A refresh token that is not live: if it was rotated, it is a replay."""
        presented_by = str(client.client_id)
        if client.client_name:
            presented_by = f"{client.client_name} ({presented_by})"
        issued = self.audit.refresh_replayed(refresh_token, presented_by)
        if issued is not None:
            log.warning(
                "a rotated refresh token was presented again; revoked every token of the "
                "grant of caller %s",
                issued.caller,
            )

    async def load_access_token(self, token: str) -> AccessToken | None:
        issued = self.store.token(token, "access")
        if issued is None or self._entry_caller(issued.caller, issued.caller_digest) is None:
            return None
        return AccessToken(
            token=token,
            client_id=issued.client_id,
            scopes=list(issued.scopes),
            expires_at=int(issued.expires_at),
            resource=issued.resource,
            subject=issued.caller,
        )

    async def revoke_token(self, token: AccessToken | HoardRefresh) -> None:
        self.store.revoke_grant_of(token.token)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise TokenError(
            "unsupported_grant_type", "hoard grants tokens only by the owner's consent"
        )

    # -- the HTTP guard's view -------------------------------------------------------------------

    def caller_for(self, token: str) -> Caller | None:
        """The caller a presented OAuth access token acts as: its entry's scopes, narrowed
        to what the token was granted; ``None`` when the token or its caller is gone."""
        if not token.startswith(ACCESS_PREFIX):
            return None
        issued = self.store.token(token, "access")
        if issued is None:
            return None
        caller = self._entry_caller(issued.caller, issued.caller_digest)
        if caller is None:
            return None
        return replace(caller, scopes=caller.scopes & frozenset(issued.scopes))

    def _entry_caller(self, name: str, digest: str) -> Caller | None:
        entry = self.tokens.find(name)
        if entry is None or entry.sha256 != digest:
            return None
        return entry.caller()

    def _issue(
        self,
        client_id: str,
        grant_id: str,
        caller: str,
        caller_digest: str,
        scopes: list[str],
        resource: str | None,
    ) -> OAuthToken:
        now = time.time()
        access = ACCESS_PREFIX + secrets.token_urlsafe(32)
        refresh = REFRESH_PREFIX + secrets.token_urlsafe(32)
        for token, kind, ttl in (
            (access, "access", self.access_ttl),
            (refresh, "refresh", self.refresh_ttl),
        ):
            self.store.save_token(
                token,
                IssuedToken(
                    kind=kind,
                    grant_id=grant_id,
                    client_id=client_id,
                    caller=caller,
                    caller_digest=caller_digest,
                    scopes=tuple(scopes),
                    expires_at=now + ttl,
                    resource=resource,
                ),
            )
        return OAuthToken(
            access_token=access,
            expires_in=int(self.access_ttl),
            scope=" ".join(scopes),
            refresh_token=refresh,
        )
