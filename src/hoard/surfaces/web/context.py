"""What every page handler shares: the :class:`Web` object (the use-cases it may call),
the signed-in session, rendering a template with the common context, and the private-note
rule (private notes are shown only when the server is bound to loopback)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import escape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.templating import Jinja2Templates

from hoard.app.hoard import Hoard
from hoard.app.owner import OwnerDesk
from hoard.app.sessions import Session, Sessions
from hoard.core.errors import HoardError, NotFound
from hoard.core.policy import Caller
from hoard.surfaces.web.words import refusal_of

SESSION_KEY = "hoard.web.session"
TYPING_MIN_CHARS = 1
"""As-you-type search starts at this many characters; Enter searches anything. Measured on
the 13k-note zk vault (``make bench-web``), 1-2 character prefixes cost no more than longer
ones, so it starts at the first; raise it if a larger vault says otherwise."""
COOKIE = "hoard_session"
PRE_COOKIE = "hoard_pre"
SAVED_COOKIE = "hoard_saved"
"""Set by a save for the note page it redirects to, which says "Saved" once."""


@dataclass(frozen=True, slots=True)
class Web:
    hoard: Hoard
    sessions: Sessions
    desk: OwnerDesk
    templates: Jinja2Templates
    show_private: bool
    """Private notes are shown only when the server is bound to loopback."""

    def may_show(self, path: str) -> bool:
        return self.show_private or not self.hoard.access.is_private(path)

    def check_shown(self, path: str) -> None:
        if not self.may_show(path):
            raise NotFound(
                "private notes are shown only when the server is bound to loopback", path=path
            )


def web_of(request: Request) -> Web:
    web: Web = request.app.state.web
    return web


def session_of(request: Request) -> Session:
    session: Session = request.scope[SESSION_KEY]
    return session


def caller_of(request: Request) -> Caller:
    return session_of(request).caller


def is_fragment(request: Request) -> bool:
    """An htmx request that wants a piece of a page (not a boosted navigation)."""
    return request.headers.get("hx-request") == "true" and "hx-boosted" not in request.headers


def page(request: Request, name: str, status: int = 200, **ctx: Any) -> Response:
    web = web_of(request)
    session = request.scope.get(SESSION_KEY)
    common: dict[str, Any] = {
        "csrf": session.row.csrf if session is not None else "",
        "signed_in": session is not None,
        "who": session.row.caller if session is not None else "",
        "badge": web.desk.pending_count() if session is not None else 0,
        "path_now": request.url.path,
        "typing_min": TYPING_MIN_CHARS,
        "sync_on": web.hoard.sync.enabled,
        "sync_warning": web.hoard.sync.warning() if session is not None else None,
    }
    common.update(ctx)
    return web.templates.TemplateResponse(request, name, common, status_code=status)


def error_page(request: Request, exc: HoardError) -> Response:
    status = exc.http_status if 400 <= exc.http_status < 600 else 500
    if is_fragment(request):
        return HTMLResponse(
            f'<p class="error" role="alert">{escape(refusal_of(exc).text)}</p>',
            status_code=status,
        )
    return page(request, "error.html", status, error=exc.to_object())
