"""Helpers for the web app's tests (the fixtures live in conftest.py)."""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard

SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
SECRET_WORD = "zanzibarquux"


@dataclass
class Site:
    url: str
    vault: Path
    hoard: Hoard
    tokens: TokenStore
    owner_token: str
    agent_token: str
    reader_token: str
    code: str

    def mcp(self, token: str, tool: str, args: dict[str, Any]) -> CallToolResult:
        """One MCP tool call through the official client over Streamable HTTP, in a thread
        of its own (the browser's sync API owns this thread's event loop)."""

        async def go() -> CallToolResult:
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as hc,
                Client(streamable_http_client(f"{self.url}/mcp", http_client=hc)) as c,
            ):
                return await c.call_tool(tool, args)

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(anyio.run, go).result(timeout=60)


def sign_in(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/signin")
    page.fill("#token", site.owner_token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site.url}/")
