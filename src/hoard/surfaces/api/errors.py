"""The one mapping of the JSON API from hoard's errors to HTTP: a status and the SPEC error
object ``{"error": CODE, "message": ..., ...details}`` as the body, the same object the MCP
tools return.

The status is the error's own :attr:`~hoard.core.errors.HoardError.http_status` (404
not_found, 409 exists/conflict, 422 contract_violation, 403 forbidden/private_note/protected,
413 too_large, 400 invalid_argument/path_rejected/bad_query, 428 a write without its
precondition, 410 an expired proposal, 503 busy, 500 io_error), with one HTTP rule on top:
when the request's own precondition decided a write, it failed with ``412 Precondition
Failed``: a stale ``If-Match`` (``conflict``) or ``If-None-Match: *`` on an existing note
(``exists``); the body still says which and carries ``current_revision``. Any other
``exists`` (a move onto a taken path) stays ``409``.
"""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import Response

from hoard.core.errors import Conflict, Exists, HoardError, InvalidArgument, NotFound
from hoard.surfaces.caller import unauthorized as no_caller

_HEADERS = {"Cache-Control": "no-store"}


Preconditions = frozenset[str]
"""The precondition headers a write request carried: ``if-match``, ``if-none-match``."""
NONE: Preconditions = frozenset()


def status_of(exc: HoardError, preconditions: Preconditions = NONE) -> int:
    if isinstance(exc, Conflict) and "if-match" in preconditions:
        return 412
    if isinstance(exc, Exists) and "if-none-match" in preconditions:
        return 412
    return exc.http_status


def _json(status: int, body: dict[str, object], headers: dict[str, str]) -> Response:
    payload = json.dumps(body, ensure_ascii=False).encode()
    return Response(payload, status, {**_HEADERS, **headers}, media_type="application/json")


def error_response(exc: HoardError, preconditions: Preconditions = NONE) -> Response:
    return _json(status_of(exc, preconditions), exc.to_object(), {})


def unauthorized() -> Response:
    return _json(401, no_caller().to_object(), {"WWW-Authenticate": 'Bearer realm="hoard"'})


async def no_route(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 and 405 (no such route, wrong method), as SPEC error objects."""
    status = getattr(exc, "status_code", 404)
    if status == 405:
        refusal = InvalidArgument(f"{request.method} is not allowed on {request.url.path}")
        return _json(405, refusal.to_object(), dict(getattr(exc, "headers", None) or {}))
    return _json(404, NotFound(f"no API route {request.url.path}").to_object(), {})
