"""Building the web app: templates, static files, the routes of every page, the error
mapping, all behind :class:`~hoard.surfaces.web.guard.WebGuard`."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from hoard.app.callers import CallerFile
from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.surfaces.web import filters
from hoard.surfaces.web.context import Web, error_page
from hoard.surfaces.web.guard import WebGuard
from hoard.surfaces.web.pages import (
    access,
    activity,
    browse,
    editing,
    files,
    inbox,
    live,
    moving,
    notes,
    search,
    signin,
    syncing,
)

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"


async def _favicon(request: Request) -> Response:
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")


async def _hoard_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HoardError)
    return error_page(request, exc)


def build_web(
    hoard: Hoard,
    tokens: CallerFile,
    *,
    show_private: bool,
    private_writes: bool = False,
    secure_cookies: bool = False,
) -> tuple[WebGuard, str]:
    """The web app (an ASGI app for ``/``; its ``sessions`` also sign the owner in to the JSON
    API, see :func:`hoard.surfaces.web.api_session.api_session`) and a one-time sign-in code
    for the owner. ``secure_cookies`` marks its cookies ``Secure`` even on plain http: the
    public address is https and a TLS proxy in front speaks http to hoard. ``private_writes``
    lets the owner's sessions edit, move and archive private notes: only for a server that
    no other machine reaches (bound to loopback, no public address)."""
    sessions, desk = hoard.owner_tools(tokens, private_writes=private_writes)
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=True)
    filters.install(env)
    templates = Jinja2Templates(env=env)
    routes = [
        *signin.ROUTES,
        *search.ROUTES,
        *notes.ROUTES,
        *files.ROUTES,
        *editing.ROUTES,
        *moving.ROUTES,
        *inbox.ROUTES,
        *syncing.ROUTES,
        *access.ROUTES,
        *activity.ROUTES,
        *browse.ROUTES,
        *live.ROUTES,
        Route("/favicon.ico", _favicon, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HoardError: _hoard_error})
    app.state.web = Web(
        hoard=hoard, sessions=sessions, desk=desk, templates=templates, show_private=show_private
    )
    style = (STATIC / "hoard.css").read_text(encoding="utf-8")
    # The sign-in page inlines the stylesheet (a signed-out visitor gets no /static file), so
    # its bytes must reach the page exactly as hashed for the CSP: never HTML-escaped.
    app.state.signin_style = Markup(style)
    app.state.secure_cookies = secure_cookies
    digest = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode()
    return WebGuard(app, sessions, f"sha256-{digest}"), sessions.issue_code()
