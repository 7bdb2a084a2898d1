"""The web app's owner session, accepted by the JSON API (the owner's browser calls
``/api/v1`` with its cookie, no token in page script).

A caller resolver for the HTTP guard (:class:`hoard.surfaces.http.Guard`), tried after the
bearer token: on ``/api/`` paths only, the ``hoard_session`` cookie of a live session names
its owner. A request that changes something (``POST``/``PUT``/``PATCH``/``DELETE``) must carry
the session's CSRF token in ``X-CSRF-Token``, checked by the web app's own
:func:`~hoard.surfaces.web.guard.csrf_ok`; without it the request is refused (403) before it
reaches a route. The guard has already refused a foreign ``Origin``, and no CORS header is
ever sent, so another site's page can neither read an answer nor forge a write.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from hoard.app.sessions import Sessions
from hoard.core.errors import Forbidden
from hoard.core.policy import Caller
from hoard.surfaces.caller import CallerResolver, Refusal
from hoard.surfaces.web.context import COOKIE
from hoard.surfaces.web.guard import UNSAFE, cookies_of, csrf_ok

API_PATHS = "/api/"
CSRF_REFUSED = (
    "a request signed in by the web session cookie that changes something needs the "
    "session's CSRF token in the X-CSRF-Token header"
)


def api_session(sessions: Sessions) -> CallerResolver:
    """The resolver: the session's owner, ``None`` (no or a dead cookie: the guard answers
    401), or a :class:`Refusal` (403) for an unsafe request without the CSRF token."""

    def resolve(headers: Mapping[str, str], scope: MutableMapping[str, Any]) -> Caller | None:
        if not str(scope.get("path", "")).startswith(API_PATHS) or "cookie" not in headers:
            return None
        secret = cookies_of(scope).get(COOKIE)
        session = sessions.current(secret) if secret else None
        if session is None:
            return None
        if scope.get("method") in UNSAFE and not csrf_ok(session.row.csrf, scope):
            raise Refusal.of(Forbidden(CSRF_REFUSED))
        return session.caller

    return resolve
