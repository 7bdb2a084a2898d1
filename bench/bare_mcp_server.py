"""The floor of ``hoard serve``'s start over stdio: the official MCP SDK's ``MCPServer``
with one tool and nothing of hoard, run as ``python bench/bare_mcp_server.py``.

``bench/cli_start.py`` times it through the same client as ``hoard serve`` (spawn to the
answer of the first ``tools/list``): what is left above this figure is hoard's own.
"""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("bare")


@server.tool()
def echo(text: str) -> str:
    """Say ``text`` back."""
    return text


if __name__ == "__main__":
    server.run("stdio")
