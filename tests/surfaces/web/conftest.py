"""Fixtures for the web app: one real server (uvicorn on 127.0.0.1, the MCP endpoint and the
web app together) over a copy of the example vault, one Chromium for the whole session
(Debian's ``chromium``, driven by Playwright; nothing is downloaded), and helpers.

This folder has no ``__init__.py`` (like tests/mcp), so module names carry a ``test_web_``
prefix to stay unique.
"""

from __future__ import annotations

import concurrent.futures
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.web import build_web
from mcp import Client

EXAMPLE_VAULT = Path(__file__).resolve().parents[3] / "examples" / "vault"
SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
SECRET_WORD = "zanzibarquux"


def note(title: str, body: str, tags: str = "alpha, beta") -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [{tags}]\n"
        f"updated: 2026-03-01\n---\n{body.rstrip()}\n"
    )


def wait_until(pred: Callable[[], Any], timeout: float = 10.0, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


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


def _vault(root: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, root)
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    (root / "secret").mkdir()
    (root / "secret" / "plan.md").write_text(
        note("Takeover plan", f"The {SECRET_WORD} plan, in full."), encoding="utf-8"
    )
    return root


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    base = tmp_path_factory.mktemp("web")
    vault = _vault(base / "vault")
    tokens = TokenStore(base / "tokens.json")
    _, owner = tokens.add("owner", "read,write,confirm,maintenance,admin", "direct")
    _, agent = tokens.add("agent", "read,write", "propose")
    _, reader = tokens.add("reader", "read", "propose")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    with Hoard(vault, base / "state", watch=True) as hoard:
        mcp = HoardMCP(hoard, LOCAL_DEFAULT)
        web, code = build_web(hoard, tokens, show_private=True)
        app = build_app(mcp, tokens, "127.0.0.1", port, web=web)
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=3
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            try:
                return server.started and httpx2.get(f"{url}/healthz").status_code == 200
            except httpx2.TransportError:
                return False

        wait_until(answers, timeout=20)
        try:
            yield Site(url, vault, hoard, tokens, owner, agent, reader, code)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            sock.close()
            mcp.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


def sign_in(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/signin")
    page.fill("#token", site.owner_token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site.url}/")


@pytest.fixture
def owner_page(browser: Any, site: Site) -> Iterator[Any]:
    """A fresh browser context, signed in as the owner, 1280 px wide."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in(page, site)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
