"""Access: callers (scopes, write mode; add a token shown once; revoke), active grants
(expiry; revoke; a new one names a caller from the list), web sessions (revoke), the private
and protected globs. Revoking a caller or a session asks first: the first press shows what
it will end and a second button does it (no script, no browser dialog)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.core.policy import SCOPES
from hoard.surfaces.web.context import page, session_of, web_of


def _page(request: Request, status: int = 200, **extra: Any) -> Response:
    web = web_of(request)
    config = web.hoard.config
    return page(
        request,
        "access.html",
        status,
        callers=web.desk.callers(),
        known_callers=web.desk.known_callers(),
        grants=web.hoard.ledger.active_grants(),
        sessions=web.sessions.active(),
        this_session=session_of(request).row.session_id,
        private=list(config.private),
        protected=list(config.protected),
        scopes=SCOPES,
        show_private=web.show_private,
        **extra,
    )


async def access_page(request: Request) -> Response:
    return _page(request)


async def add_caller(request: Request) -> Response:
    web = web_of(request)
    form = await request.form()
    scopes = ",".join(s for s in SCOPES if form.get(f"scope_{s}"))
    try:
        info, token = web.desk.add_caller(
            str(form.get("name", "")).strip(),
            scopes,
            str(form.get("write_mode", "propose")),
            bool(form.get("confirm_own")),
            str(form.get("read", "")),
            str(form.get("write", "")),
        )
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, new_token={"name": info.name, "token": token})


async def _confirmed(request: Request) -> bool:
    """Whether this revoke is the second press (the one on the question)."""
    return (await request.form()).get("confirmed") == "yes"


async def revoke_caller(request: Request) -> Response:
    name = request.path_params["name"]
    if not await _confirmed(request):
        return _page(
            request,
            ask={
                "question": f"Revoke the caller {name}?",
                "consequence": "Its token stops working at once, for every agent using it, "
                "and so do the sessions and OAuth tokens it opened. This cannot be undone: "
                "a new token means adding the caller again.",
                "action": f"/access/callers/{quote(name, safe='')}/revoke",
            },
        )
    try:
        web_of(request).desk.revoke_caller(name)
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, done=f"revoked caller {request.path_params['name']}")


async def add_grant(request: Request) -> Response:
    form = await request.form()
    try:
        web_of(request).desk.add_grant(
            str(form.get("caller", "")),
            str(form.get("glob", "")),
            float(str(form.get("minutes", "30"))),
        )
    except (HoardError, ValueError) as exc:
        problem = exc.to_object() if isinstance(exc, HoardError) else {"message": str(exc)}
        return _page(request, 400, problem=problem)
    return _page(request, done="grant added")


async def revoke_grant(request: Request) -> Response:
    try:
        web_of(request).hoard.ledger.revoke_grant(request.path_params["grant_id"])
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, done="grant revoked")


async def revoke_session(request: Request) -> Response:
    sid = request.path_params["session_id"]
    if not await _confirmed(request):
        this = sid == session_of(request).row.session_id
        return _page(
            request,
            ask={
                "question": f"Sign out the session {sid}?",
                "consequence": "This is the session you are using: you will be signed out."
                if this
                else "That browser is signed out at once.",
                "action": f"/access/sessions/{quote(sid, safe='')}/revoke",
            },
        )
    try:
        web_of(request).sessions.revoke(request.path_params["session_id"])
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, done="session revoked")


ROUTES = [
    Route("/access", access_page, methods=["GET"]),
    Route("/access/callers", add_caller, methods=["POST"]),
    Route("/access/callers/{name}/revoke", revoke_caller, methods=["POST"]),
    Route("/access/grants", add_grant, methods=["POST"]),
    Route("/access/grants/{grant_id}/revoke", revoke_grant, methods=["POST"]),
    Route("/access/sessions/{session_id}/revoke", revoke_session, methods=["POST"]),
]
