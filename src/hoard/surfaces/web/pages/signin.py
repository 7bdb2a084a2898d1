"""Sign-in (an ``admin`` token in a password field, or the one-time link ``hoard serve``
prints), sign-out. The session cookie is ``HttpOnly; SameSite=Strict`` and ``Secure`` over
TLS (or behind a TLS proxy: ``--public-url https://...``); the sign-in form is protected by a
double-submit token of its own."""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from hoard.app.sessions import SESSION_TTL_SECONDS, Session
from hoard.core.errors import Forbidden
from hoard.surfaces.web.context import COOKIE, PRE_COOKIE, SESSION_KEY, page, web_of


def _safe_next(target: str | None) -> str:
    """Only a path on this server (never ``//host`` or a scheme)."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    parts = urlsplit(target)
    return "/" if parts.scheme or parts.netloc or "\\" in target else target


def _secure(request: Request) -> bool:
    """Is the browser's side of this request TLS (here, or at a proxy in front)?"""
    return request.url.scheme == "https" or bool(request.app.state.secure_cookies)


def _signin_form(request: Request, message: str | None = None, status: int = 200) -> Response:
    # Reuse the visitor's token: a second sign-in page (another tab, a redirect) must not
    # invalidate the form already shown.
    pre = request.cookies.get(PRE_COOKIE) or secrets.token_urlsafe(24)
    response = page(
        request,
        "signin.html",
        status,
        pre=pre,
        message=message,
        next=_safe_next(request.query_params.get("next")),
        style=request.app.state.signin_style,
    )
    response.set_cookie(
        PRE_COOKIE,
        pre,
        max_age=3600,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/signin",
    )
    return response


def _signed_in(request: Request, secret: str, session: Session, target: str) -> Response:
    response = RedirectResponse(_safe_next(target), status_code=303)
    response.set_cookie(
        COOKIE,
        secret,
        max_age=SESSION_TTL_SECONDS,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/",
    )
    response.delete_cookie(PRE_COOKIE, path="/signin")
    return response


async def signin_page(request: Request) -> Response:
    if request.scope.get(SESSION_KEY) is not None:
        return RedirectResponse(_safe_next(request.query_params.get("next")), status_code=303)
    return _signin_form(request)


async def signin_submit(request: Request) -> Response:
    form = await request.form()
    token = str(form.get("token", ""))
    try:
        secret, session = web_of(request).sessions.sign_in(
            token, request.headers.get("user-agent", "")
        )
    except Forbidden as exc:
        return _signin_form(request, exc.message, 403)
    return _signed_in(request, secret, session, str(form.get("next", "/")))


async def signin_link(request: Request) -> Response:
    code = request.query_params.get("code", "")
    try:
        secret, session = web_of(request).sessions.sign_in_with_code(
            code, request.headers.get("user-agent", "")
        )
    except Forbidden as exc:
        return _signin_form(request, exc.message, 403)
    return _signed_in(request, secret, session, "/")


async def signout(request: Request) -> Response:
    web_of(request).sessions.sign_out(request.cookies.get(COOKIE, ""))
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


ROUTES = [
    Route("/signin", signin_page, methods=["GET"]),
    Route("/signin", signin_submit, methods=["POST"]),
    Route("/signin/link", signin_link, methods=["GET"]),
    Route("/signout", signout, methods=["POST"]),
]
