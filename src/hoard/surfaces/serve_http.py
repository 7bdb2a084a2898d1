"""Running the server over Streamable HTTP under uvicorn: the MCP endpoint, the JSON API,
the web app and hoard's OAuth issuer on one bound socket."""

from __future__ import annotations

import errno
import logging
import socket
import sys
from functools import partial
from urllib.parse import urlsplit

import uvicorn
from mcp.server.auth.routes import validate_issuer_url
from pydantic import AnyHttpUrl

from hoard.app.callers import CallerFile
from hoard.app.hoard import Hoard
from hoard.app.oauth_grants import GrantAudit
from hoard.core.policy import Caller
from hoard.surfaces.http import build_app, is_loopback
from hoard.surfaces.mcp.events import publish_on_change, with_background
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.oauth.provider import HoardOAuth
from hoard.surfaces.web import WebOwner, build_web
from hoard.surfaces.web.api_session import api_session

log = logging.getLogger("hoard.serve")


class PortUnavailable(Exception):
    """The HTTP address cannot be bound; the message is one line for the person at the
    terminal: which address, why, and what to do instead."""


def check_remote(host: str, allow_remote: bool) -> None:
    if not is_loopback(host):
        if not allow_remote:
            raise SystemExit(
                f"hoard: refusing to bind {host}: only loopback addresses by default; "
                "pass --allow-remote to serve beyond this machine"
            )
        log.warning(
            "serving on %s: reachable from other machines; keep tokens secret and put TLS in front",
            host,
        )


def bind_http(host: str, port: int) -> socket.socket:
    """Bind and listen on ``host:port`` before anything is announced, so a taken port is one
    clear line rather than a connection snippet followed by uvicorn's raw error."""
    shown = f"[{host}]" if ":" in host else host
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortUnavailable(f"cannot bind {shown}:{port}: {exc.strerror}") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailable(
                f"port {port} on {shown} is taken (another program is listening there); "
                f"choose another with --http {shown}:PORT, e.g. --http {shown}:{port + 1}"
            ) from exc
        if exc.errno == errno.EACCES:
            raise PortUnavailable(
                f"port {port} on {shown} needs privileges this user lacks; "
                f"choose a port above 1023 with --http {shown}:PORT"
            ) from exc
        raise PortUnavailable(
            f"cannot bind {shown}:{port}: {exc.strerror}; choose another address with "
            "--http HOST:PORT"
        ) from exc
    sock.setblocking(False)
    return sock


def public_hosts(public_url: str) -> set[str]:
    """The ``Host`` header values a client sends for ``public_url``."""
    parts = urlsplit(public_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SystemExit(f"hoard: --public-url wants http(s)://HOST[:PORT], got {public_url!r}")
    default = 443 if parts.scheme == "https" else 80
    name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    port = parts.port or default
    return {f"{name}:{port}"} | ({name} if port == default else set())


def site_url(host: str, port: int, public_url: str | None) -> str:
    """The address a browser or a client uses: ``public_url``, else ``http://HOST:PORT``."""
    shown = f"[{host}]" if ":" in host else host
    return (public_url or f"http://{shown}:{port}").rstrip("/")


def oauth_issuer(
    hoard: Hoard, tokens: CallerFile, host: str, port: int, public_url: str | None = None
) -> HoardOAuth | None:
    """hoard's own OAuth issuer for ``public_url`` or else ``http://HOST:PORT`` (state in
    ``oauth.db`` of the state folder, or the replicas' shared store), or ``None`` when that
    address cannot be an issuer (plain http off loopback)."""
    base = site_url(host, port, public_url)
    try:
        validate_issuer_url(AnyHttpUrl(base))
    except ValueError:
        log.warning("OAuth sign-in is off: %s is not https nor loopback; static tokens only", base)
        return None
    grants = hoard.grant_store()
    audit = GrantAudit(grants, hoard.ledger)  # security events go to the owner's Activity
    return HoardOAuth(grants, tokens, base, f"{base}/mcp", audit=audit)


def callers(tokens: CallerFile) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """Each caller with its scopes and write mode: what the tools a caller is listed
    depend on (a change is published to listening clients, see :mod:`.mcp.events`)."""
    return tuple((e.name, e.scopes, e.write_mode) for e in tokens.entries())


def serve_http(
    hoard: Hoard,
    caller: Caller,
    tokens: CallerFile,
    host: str,
    port: int,
    sock: socket.socket,
    public_url: str | None = None,
) -> None:
    """Serve ``host:port`` on its already bound socket (see :func:`bind_http`)."""
    site = site_url(host, port, public_url)
    mcp = HoardMCP(hoard, caller, site)
    web, code = build_web(
        hoard,
        tokens,
        show_private=is_loopback(host),
        private_writes=is_loopback(host) and public_url is None,
        secure_cookies=site.startswith("https:"),
    )
    oauth = oauth_issuer(hoard, tokens, host, port, public_url)
    if oauth is not None:  # the consent page asks the owner signed in to the web app
        oauth.owner = WebOwner(web.sessions)
    extra = public_hosts(public_url) if public_url else set()
    session = api_session(web.sessions)  # the owner's browser session on /api/v1 too
    app = build_app(
        mcp, tokens, host, port, oauth=oauth, web=web, resolvers=(session,), public_hosts=extra
    )
    app = with_background(app, partial(publish_on_change, mcp.bus, partial(callers, tokens)))
    sys.stderr.write(
        f"hoard: the web app: open {site}/signin/link?code={code} to sign in "
        "(a one-time link, good for 15 minutes; or sign in with a token holding the admin scope)\n"
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        lifespan="on",
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])  # handles Ctrl-C and SIGTERM itself
    finally:
        mcp.close()
        sock.close()
