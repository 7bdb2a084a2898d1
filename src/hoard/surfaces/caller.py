"""Where an authenticated caller travels through the HTTP stack.

One auth middleware (:class:`hoard.surfaces.http.Guard`) resolves the caller of a request
(bearer token today; other resolvers, such as the web app's session cookie, plug in there)
and puts it in the ASGI scope under :data:`CALLER_SCOPE_KEY`. The MCP tools and the JSON API
read it from there and never look at credentials themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hoard.core.policy import Caller

CALLER_SCOPE_KEY = "hoard.caller"


def caller_in(scope: Mapping[str, Any]) -> Caller | None:
    """The caller the auth middleware put in ``scope``, if any."""
    caller = scope.get(CALLER_SCOPE_KEY)
    return caller if isinstance(caller, Caller) else None
