"""Where an authenticated caller travels through the HTTP stack.

One auth middleware (:class:`hoard.surfaces.http.Guard`) resolves the caller of a request
(bearer token today; other resolvers, such as the web app's session cookie, plug in there)
and puts it in the ASGI scope under :data:`CALLER_SCOPE_KEY`. The MCP tools and the JSON API
read it from there and never look at credentials themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from hoard.core.errors import HoardError, Unauthorized
from hoard.core.policy import Caller

CALLER_SCOPE_KEY = "hoard.caller"

CallerResolver = Callable[[Mapping[str, str], MutableMapping[str, Any]], Caller | None]
"""Names the caller of a request from its (lower-cased) headers and ASGI scope, or ``None``.
The guard tries the bearer token first, then each resolver in turn."""


class Refusal(Exception):
    """What the guard answers instead of the app (status, JSON body, headers); a caller
    resolver raises it to refuse a request outright (e.g. a failed CSRF check)."""

    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}

    @classmethod
    def of(
        cls, exc: HoardError, status: int | None = None, headers: dict[str, str] | None = None
    ) -> Refusal:
        """The refusal of ``exc``: its SPEC error object as the body, its HTTP status unless
        ``status`` names a more precise one."""
        return cls(status or exc.http_status, exc.to_object(), headers)


def unauthorized() -> Unauthorized:
    """The refusal of a request that names no caller (401; the guard adds the challenge)."""
    return Unauthorized("a valid Authorization: Bearer token is required")


def caller_in(scope: Mapping[str, Any]) -> Caller | None:
    """The caller the auth middleware put in ``scope``, if any."""
    caller = scope.get(CALLER_SCOPE_KEY)
    return caller if isinstance(caller, Caller) else None
