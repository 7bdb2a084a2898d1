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


CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", function (e) {
  console.error("CSP violation: " + e.violatedDirective + " blocked " +
    (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});
"""


class WatchedBrowser:
    """The session's Chromium, whose every context reports into :attr:`problems`: console
    errors, uncaught exceptions and Content-Security-Policy violations (a listener for
    ``securitypolicyviolation`` added to every document before its own scripts run)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self.problems: list[str] = []

    def new_context(self, **kwargs: Any) -> Any:
        context = self._browser.new_context(**kwargs)
        context.add_init_script(CSP_LISTENER)
        context.on("page", self._watch)
        return context

    def _watch(self, page: Any) -> None:
        page.on("console", lambda m: self._console(page, m))
        page.on("pageerror", lambda e: self.problems.append(f"{page.url}: uncaught {e}"))

    def _console(self, page: Any, message: Any) -> None:
        if message.type != "error":
            return
        failed_load = message.text.startswith("Failed to load resource")
        if failed_load and message.location.get("url") == page.url:
            return  # the page itself answered with its status (a 404 page, a 409 conflict)
        self.problems.append(f"{page.url}: console error: {message.text} {message.location}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def sign_in(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/signin")
    page.fill("#token", site.owner_token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site.url}/")
