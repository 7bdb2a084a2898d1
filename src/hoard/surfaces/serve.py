"""Running the MCP server over stdio (the default), and the connection help printed on start.

Streamable HTTP is :mod:`.serve_http`: this module loads neither uvicorn, Starlette nor the
web app, so a client that starts ``hoard serve`` gets its first answer sooner.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.client_config import Target, snippet, stdio_args
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.mcp.stdio import run_stdio


def connect_help(
    vault: Path,
    state_dir: Path,
    tokens: Path | str,
    http: tuple[str, int] | None,
    token: str | None = None,
    *,
    tokens_file: bool = True,
) -> str:
    """How to connect, for a person reading the terminal (printed on stderr): a client
    config for stdio (naming this ``hoard`` by its absolute path) and, when serving HTTP, one
    for HTTP with the bearer token. ``hoard mcp-config`` prints them for other clients.
    ``tokens`` is the tokens file, or (``tokens_file=False``) the shared store holding the
    callers."""
    stdio_cfg = snippet("claude-desktop", Target(serve_args=stdio_args(vault, state_dir)))
    if http is None:
        return "hoard: serving over stdio. Client config:\n" + json.dumps(stdio_cfg, indent=2)
    host, port = http
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    http_cfg = snippet("claude-desktop", Target(url=url, token=token))
    lines = [
        f"hoard: serving {vault} at {url} (health: http://{shown}:{port}/healthz)",
        f"hoard: tokens file {tokens}" if tokens_file else f"hoard: callers in the store {tokens}",
    ]
    if token is None:
        option = f" --tokens {tokens}" if tokens_file else ""
        lines.append(f"hoard: create a token with: hoard token add NAME --scopes read{option}")
    lines.append("Client config for HTTP:\n" + json.dumps(http_cfg, indent=2))
    lines.append(
        "Client config for stdio (the client starts its own server; the caller is the local "
        "default, or add --as NAME):\n" + json.dumps(stdio_cfg, indent=2)
    )
    return "\n".join(lines)


def serve_stdio(hoard: Hoard, caller: Caller) -> None:
    mcp = HoardMCP(hoard, caller)
    try:
        asyncio.run(run_stdio(mcp.server))
    finally:
        mcp.close()
