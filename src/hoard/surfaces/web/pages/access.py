"""Access: callers (scopes, write mode; add a token shown once; revoke), active grants
(expiry; revoke), web sessions (revoke), the private and protected globs."""

from __future__ import annotations

from typing import Any

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
        grants=web.desk.grants(),
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
        )
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, new_token={"name": info.name, "token": token})


async def revoke_caller(request: Request) -> Response:
    try:
        web_of(request).desk.revoke_caller(request.path_params["name"])
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
        web_of(request).desk.revoke_grant(request.path_params["grant_id"])
    except HoardError as exc:
        return _page(request, exc.http_status, problem=exc.to_object())
    return _page(request, done="grant revoked")


async def revoke_session(request: Request) -> Response:
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
