"""Running the server: stdio (the default) or Streamable HTTP under uvicorn."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.http import build_app, is_loopback
from hoard.surfaces.mcp.server import HoardMCP

log = logging.getLogger("hoard.serve")


def connect_help(
    vault: Path,
    state_dir: Path,
    tokens: Path,
    http: tuple[str, int] | None,
    token: str | None = None,
) -> str:
    """How to connect, for a person reading the terminal (printed on stderr): a client
    config for stdio and, when serving HTTP, one for HTTP with the bearer token."""
    stdio_cfg = {
        "mcpServers": {
            "hoard": {
                "command": "hoard",
                "args": ["serve", "--vault", str(vault), "--state-dir", str(state_dir)],
            }
        }
    }
    if http is None:
        return "hoard: serving over stdio. Client config:\n" + json.dumps(stdio_cfg, indent=2)
    host, port = http
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    http_cfg = {
        "mcpServers": {
            "hoard": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": f"Bearer {token or '<token from hoard token add>'}"},
            }
        }
    }
    lines = [
        f"hoard: serving {vault} at {url} (health: http://{shown}:{port}/healthz)",
        f"hoard: tokens file {tokens}",
    ]
    if token is None:
        lines.append(
            f"hoard: create a token with: hoard token add NAME --scopes read --tokens {tokens}"
        )
    lines.append("Client config for HTTP:\n" + json.dumps(http_cfg, indent=2))
    lines.append(
        "Client config for stdio (the client starts its own server; the caller is the local "
        "default, or add --as NAME):\n" + json.dumps(stdio_cfg, indent=2)
    )
    return "\n".join(lines)


def serve_stdio(hoard: Hoard, caller: Caller) -> None:
    mcp = HoardMCP(hoard, caller)
    try:
        asyncio.run(mcp.server.run_stdio_async())
    finally:
        mcp.close()


def serve_http(
    hoard: Hoard,
    caller: Caller,
    tokens: TokenStore,
    host: str,
    port: int,
    allow_remote: bool = False,
) -> None:
    import uvicorn

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
    mcp = HoardMCP(hoard, caller)
    app = build_app(mcp, tokens, host, port)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        lifespan="on",
    )
    try:
        uvicorn.Server(config).run()  # uvicorn handles Ctrl-C and SIGTERM itself
    finally:
        mcp.close()
