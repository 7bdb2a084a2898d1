"""Client configuration snippets: how a desktop or editor MCP client starts or reaches hoard.

A client that starts hoard itself (stdio) needs the command by an absolute path: a desktop
app does not share the shell's ``PATH``, so a bare ``hoard`` fails with ``spawn hoard
ENOENT`` when hoard lives in a virtual environment. :func:`hoard_command` names the
``hoard`` that is running now; :func:`snippet` shapes one server entry the way each client
spells it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
"""The clients ``hoard mcp-config --client`` knows; the first is the default."""

WHERE = {
    "claude-desktop": "Claude Desktop: claude_desktop_config.json (Settings > Developer > Edit "
    "Config; macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\\Claude\\)",
    "claude-code": "Claude Code: .mcp.json at the project root, or pass the entry to "
    "`claude mcp add-json hoard '<entry>'`",
    "cursor": "Cursor: ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
    "vscode": "VS Code: .vscode/mcp.json in the workspace (or MCP: Open User Configuration)",
}


def hoard_command() -> list[str]:
    """The absolute command that runs this hoard: the console script being run, else the
    one next to this interpreter, else ``python -m hoard`` with this interpreter."""
    candidates = [Path(sys.argv[0]), Path(sys.executable).parent / "hoard"]
    for path in candidates:
        if path.name == "hoard" and path.is_file() and os.access(path, os.X_OK):
            return [str(path.resolve())]
    return [str(Path(sys.executable).resolve()), "-m", "hoard"]


@dataclass(frozen=True, slots=True)
class Target:
    """What the entry points at: a stdio server (``serve_args``) or an HTTP URL."""

    serve_args: tuple[str, ...] = ()
    url: str | None = None
    token: str | None = None


def stdio_args(
    vault: Path, state_dir: Path | None, tokens: Path | None = None, as_name: str | None = None
) -> tuple[str, ...]:
    args = ["serve", "--vault", str(vault)]
    if state_dir is not None:
        args += ["--state-dir", str(state_dir)]
    if tokens is not None:
        args += ["--tokens", str(tokens)]
    if as_name:
        args += ["--as", as_name]
    return tuple(args)


def entry(client: str, target: Target) -> dict[str, Any]:
    """One server entry, as ``client`` spells it."""
    if target.url is not None:
        headers = {"Authorization": f"Bearer {target.token or '<token from hoard token add>'}"}
        if client == "cursor":
            return {"url": target.url, "headers": headers}
        return {"type": "http", "url": target.url, "headers": headers}
    command = hoard_command()
    out: dict[str, Any] = {"command": command[0], "args": [*command[1:], *target.serve_args]}
    if client in ("claude-code", "vscode"):
        out = {"type": "stdio", **out}
    return out


def snippet(client: str, target: Target, name: str = "hoard") -> dict[str, Any]:
    """The whole file content for ``client`` with one server called ``name``."""
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
    key = "servers" if client == "vscode" else "mcpServers"
    return {key: {name: entry(client, target)}}
