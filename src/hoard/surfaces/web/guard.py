"""The web app's own gate, inside the server's Host/Origin guard:

- security headers on every response (a strict Content-Security-Policy without inline
  script, ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``, ``Referrer-Policy``,
  ``nosniff``; pages are not cached);
- the session cookie: without a live session only the sign-in page answers (a page request
  is sent there, anything else gets 401);
- CSRF: every unsafe request of a session must carry the session's token (the ``csrf`` form
  field or the ``X-CSRF-Token`` header); the sign-in form carries a double-submit token.
  A foreign ``Origin`` never gets this far (403 in the outer guard), and the cookie is
  ``SameSite=Strict``.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, quote

from hoard.app.sessions import Sessions
from hoard.surfaces.web.context import COOKIE, PRE_COOKIE, SESSION_KEY

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
PUBLIC_PATHS = frozenset({"/signin", "/signin/link", "/favicon.ico"})
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_FORM_BYTES = 8 * 1024 * 1024


def cookies_of(scope: Scope) -> dict[str, str]:
    raw = "; ".join(
        v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == b"cookie"
    )
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # a malformed cookie header signs nobody in
        return {}
    return {k: m.value for k, m in jar.items()}


def header(scope: Scope, name: bytes) -> str:
    for k, v in scope.get("headers", []):
        if k.lower() == name:
            return str(v.decode("latin-1"))
    return ""


def csrf_ok(expected: str, scope: Scope, body: bytes = b"") -> bool:
    """Does an unsafe request carry the session's CSRF token (the ``X-CSRF-Token`` header, or
    the ``csrf`` field of a urlencoded form ``body``)? Also the JSON API's check for requests
    signed in by the session cookie (:mod:`hoard.surfaces.web.api_session`)."""
    presented = header(scope, b"x-csrf-token") or _form_field(scope, body, "csrf")
    return bool(expected) and hmac.compare_digest(presented.encode(), expected.encode())


class WebGuard:
    def __init__(self, app: ASGIApp, sessions: Sessions, style_hash: str) -> None:
        self.app = app
        self.sessions = sessions
        self.signin_csp = CSP.replace("style-src 'self'", f"style-src 'self' '{style_hash}'")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = self.signin_csp if path in PUBLIC_PATHS else CSP
        send = _with_headers(send, csp, cacheable=path.startswith("/static/"))
        cookies = cookies_of(scope)
        session = self.sessions.current(cookies.get(COOKIE, ""))
        method = scope.get("method", "GET")
        if session is None and path not in PUBLIC_PATHS:
            await _refuse_signed_out(scope, send, method)
            return
        if method in UNSAFE:
            body = await _read(receive)
            expected = session.row.csrf if session is not None else cookies.get(PRE_COOKIE, "")
            if not csrf_ok(expected, scope, body):
                await _plain(send, 403, "refused: the form's CSRF token is missing or wrong")
                return
            receive = _replay(body)
        scope[SESSION_KEY] = session
        await self.app(scope, receive, send)


def _with_headers(send: Send, csp: str, cacheable: bool) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            headers += [(b"content-security-policy", csp.encode()), *SECURITY_HEADERS]
            if not cacheable:
                headers.append((b"cache-control", b"no-store"))
            message["headers"] = headers
        await send(message)

    return wrapped


async def _refuse_signed_out(scope: Scope, send: Send, method: str) -> None:
    if method == "GET" and header(scope, b"hx-request") != "true":
        target = scope.get("path", "/")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        location = "/signin" if target == "/" else "/signin?next=" + quote(target, safe="")
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [(b"location", location.encode()), (b"content-length", b"0")],
            }
        )
        await send({"type": "http.response.body", "body": b""})
        return
    await _plain(send, 401, "sign in first")


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _read(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return b""
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _form_field(scope: Scope, body: bytes, name: str) -> str:
    if not header(scope, b"content-type").startswith("application/x-www-form-urlencoded"):
        return ""
    values = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).get(name, [])
    return values[0] if values else ""


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive
