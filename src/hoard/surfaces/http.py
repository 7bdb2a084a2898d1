"""The HTTP surface: Streamable HTTP at ``/mcp``, the JSON API at ``/api/v1`` and ``/healthz``,
behind one guard.

The guard is a plain ASGI middleware in front of the SDK's Starlette app. In order, for
every HTTP request:

0. request headers over :data:`MAX_HEADER_BYTES` in all → 431;
1. strict mode with an untrustworthy tokens file → 503 (everything, ``/healthz`` too);
2. a ``Host`` that is not this server → 421; a foreign ``Origin`` → 403 (DNS rebinding);
3. ``/healthz`` → 200 without auth, saying nothing about the vault;
4. no or unknown ``Authorization: Bearer`` token → 401, except on the OAuth paths (metadata,
   registration, authorization, token, revocation, consent: how a client gets a token). A
   token is a static one from the tokens file or an OAuth access token hoard issued; the 401
   names the protected-resource metadata so a client can discover how to sign in;
   Other caller resolvers (such as the web app's session cookie) are tried after the bearer
   token; a resolver may refuse outright (e.g. a failed CSRF check on an unsafe method);
5. a body over the cap → 413 (checked on ``Content-Length`` and again while streaming);
   a JSON-RPC batch (a JSON array) sent outside ``/api/`` → 400 with JSON-RPC error -32600;
   an MCP message nested deeper than :data:`~hoard.core.json_depth.MAX_JSON_DEPTH` → 400 with
   JSON-RPC error -32700 and the message's id when a shallow scan can read it (the shape the
   SDK gives a body that is not JSON).

The authenticated caller is put in the ASGI scope, where the MCP tools find it.

With the web app mounted, requests outside ``/mcp`` (and other bearer paths) pass steps 1-3
and then go to the web app, which signs its owner in with a session of its own.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from hoard.app.admin import TokenAdmin
from hoard.app.callers import CallerFile
from hoard.core.errors import Forbidden, InvalidArgument, Misdirected, TooLarge, Unavailable
from hoard.core.json_depth import MAX_JSON_DEPTH, shallow_id, too_deep
from hoard.core.policy import Caller
from hoard.surfaces.api import API_PREFIX, build_api
from hoard.surfaces.caller import CALLER_SCOPE_KEY, CallerResolver, Refusal, unauthorized
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.oauth.provider import HoardOAuth
from hoard.surfaces.oauth.routes import oauth_app, resource_metadata_url

log = logging.getLogger("hoard.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = 1024 * 1024
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> set[str]:
    names = {host, "localhost", "127.0.0.1", "[::1]"} if is_loopback(host) else {host}
    if ":" in host and not host.startswith("["):
        names.add(f"[{host}]")
    return {f"{n}:{port}" for n in names} | ({*names} if port == 80 else set())


MAX_HEADER_BYTES = 16 * 1024
"""All request header names and values together (the largest browsers send is a few KiB)."""


async def _respond(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    payload = json.dumps(body).encode()
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    for k, v in (headers or {}).items():
        raw_headers.append((k.lower().encode(), v.encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})


BEARER_PREFIXES = ("/mcp", "/api/")


class Guard:
    def __init__(
        self,
        app: ASGIApp,
        tokens: CallerFile,
        hosts: set[str],
        max_body: int = MAX_BODY_BYTES,
        oauth: HoardOAuth | None = None,
        public: frozenset[str] = frozenset(),
        web: ASGIApp | None = None,
        resolvers: Sequence[CallerResolver] = (),
    ) -> None:
        self.app = app
        self.web = web
        self.tokens = tokens
        self.resolvers = tuple(resolvers)
        self.oauth = oauth
        self.public = public
        challenge = 'Bearer realm="hoard"'
        if oauth is not None:
            challenge += f', resource_metadata="{resource_metadata_url(oauth)}"'
        self.challenge = challenge
        self.hosts = {h.lower() for h in hosts}
        self.origins = {f"http://{h}" for h in self.hosts} | {f"https://{h}" for h in self.hosts}
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        not_web = path.startswith(BEARER_PREFIXES) or path in self.public  # MCP, OAuth
        to_web = self.web is not None and not not_web
        try:
            receive = await self._admit(scope, receive, to_web)
        except Refusal as r:
            await _respond(send, r.status, r.body, r.headers)
            return
        if to_web and self.web is not None:
            await self.web(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _admit(self, scope: Scope, receive: Receive, to_web: bool = False) -> Receive:
        if sum(len(k) + len(v) for k, v in scope.get("headers", [])) > MAX_HEADER_BYTES:
            raise Refusal.of(TooLarge("request headers are too large"), 431)
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
        }
        problem = self.tokens.status()
        if problem is not None:
            raise Refusal.of(
                Unavailable(
                    "the server refuses requests until its tokens file is fixed (see the "
                    "server log)"
                )
            )
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            raise Refusal.of(Misdirected("unexpected Host header"))
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            raise Refusal.of(Forbidden("foreign Origin refused"))
        if scope.get("path") == "/healthz":
            raise Refusal(200, {"status": "ok"})
        if to_web:
            return receive
        if scope.get("path") not in self.public:
            scope[CALLER_SCOPE_KEY] = self._caller(headers, scope)
        if scope.get("method") not in _BODY_METHODS:
            return receive
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            raise Refusal.of(self._body_too_large())
        body = await self._read_body(receive)
        if not str(scope.get("path", "")).startswith("/api/") and body.lstrip()[:1] == b"[":
            raise Refusal(
                400,
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "JSON-RPC batches are not supported"},
                },
            )
        if str(scope.get("path", "")).startswith("/mcp") and too_deep(body):
            raise Refusal(400, too_deep_reply(body))
        return _replay(body, receive)

    def _caller(self, headers: Mapping[str, str], scope: Scope) -> Caller:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        token = token.strip()
        caller = None
        if scheme.lower() == "bearer" and token:
            caller = self.tokens.verify(token)
            if caller is None and self.oauth is not None:
                caller = self.oauth.caller_for(token)
        for resolve in self.resolvers:
            if caller is not None:
                break
            caller = resolve(headers, scope)
        if caller is None:
            challenge = self.challenge + (', error="invalid_token"' if token else "")
            raise Refusal.of(unauthorized(), headers={"WWW-Authenticate": challenge})
        return caller

    def _body_too_large(self) -> TooLarge:
        return TooLarge(f"request bodies are capped at {self.max_body} bytes", limit=self.max_body)

    async def _read_body(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refusal.of(InvalidArgument("client went away"))
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise Refusal.of(self._body_too_large())
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def too_deep_reply(body: bytes) -> dict[str, Any]:
    """The JSON-RPC parse error for a message nested too deep, with its id if readable."""
    return {
        "jsonrpc": "2.0",
        "id": shallow_id(body),
        "error": {
            "code": -32700,
            "message": f"Parse error: the message nests objects or arrays more than "
            f"{MAX_JSON_DEPTH} deep",
        },
    }


def _replay(body: bytes, receive: Receive) -> Receive:
    """Hand the buffered body to the app once, then the real ``receive``: a streaming
    response (a 2026-07-28 ``subscriptions/listen`` stream, an SSE reply) keeps reading it to
    learn when the client leaves, so only a real ``http.disconnect`` may end it."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _api_first(api: ASGIApp, app: ASGIApp) -> ASGIApp:
    """Everything under ``/api/v1`` goes to the JSON API (which answers its own JSON 404 and
    405); a ``Mount`` would leave a path its pattern cannot match (a ``%0A`` in a note path)
    to the MCP app's plain-text 404."""

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and (path == API_PREFIX or path.startswith(API_PREFIX + "/")):
            scope["root_path"] = scope.get("root_path", "") + API_PREFIX
            await api(scope, receive, send)
        else:
            await app(scope, receive, send)

    return routed


def _routed(paths: frozenset[str], oauth: ASGIApp, mcp: ASGIApp) -> ASGIApp:
    """Requests for the OAuth paths go to the OAuth app; everything else (lifespan too) to
    the MCP app."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") in paths:
            await oauth(scope, receive, send)
        else:
            await mcp(scope, receive, send)

    return app


def build_app(
    mcp: HoardMCP,
    tokens: CallerFile,
    host: str,
    port: int,
    max_body: int = MAX_BODY_BYTES,
    oauth: HoardOAuth | None = None,
    web: ASGIApp | None = None,
    resolvers: Sequence[CallerResolver] = (),
    public_hosts: Iterable[str] = (),
) -> ASGIApp:
    """The guarded app: ``/mcp``, ``/healthz``, with ``oauth`` hoard's own OAuth 2.1
    authorization server (see :mod:`hoard.surfaces.oauth`), and with ``web`` the owner's web
    app (:func:`hoard.surfaces.web.build_web`) for every other path. ``public_hosts`` are the
    ``Host`` values of a public URL a proxy or tunnel forwards here."""
    hosts = allowed_hosts(host, port) | {h.lower() for h in public_hosts}
    inner = mcp.server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        max_request_body_size=max_body,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=sorted(hosts),
            allowed_origins=sorted({f"{s}://{h}" for h in hosts for s in ("http", "https")}),
        ),
        host=host,
    )
    api = build_api(mcp.hoard, TokenAdmin(mcp.hoard.deps, tokens))
    served = _api_first(api, inner)
    if oauth is None:
        return Guard(served, tokens, hosts, max_body, web=web, resolvers=resolvers)
    endpoints, paths = oauth_app(oauth)
    app = _routed(paths, endpoints, served)
    return Guard(app, tokens, hosts, max_body, oauth, paths, web, resolvers)
