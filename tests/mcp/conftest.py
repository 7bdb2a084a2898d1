"""Fixtures for the MCP surface suite: real vaults in tmp_path, real SQLite, the official SDK
client (in memory, stdio, Streamable HTTP against a real uvicorn on loopback).

Helpers are handed out as fixtures so test modules never import this file.

This folder deliberately has no ``__init__.py``: as a package it would be imported as ``mcp``
and shadow the SDK. Its test modules therefore carry a ``test_mcp_`` prefix to stay unique.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp_types import CallToolResult

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP

EXAMPLE_VAULT = Path(__file__).resolve().parents[2] / "examples" / "vault"

# A word that occurs only in the protected note, and one only in a private note.
SECRET_WORD = "zanzibarquux"
PRIVATE_WORD = "quillfeatherpine"


def _note(title: str, body: str, tags: str = "alpha, beta") -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [{tags}]\n"
        f"updated: 2026-03-01\n---\n{body.rstrip()}\n"
    )


def _wait_until(pred: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02) -> Any:
    """Poll ``pred`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


async def _apoll(
    pred: Callable[[], Awaitable[Any]], timeout: float = 10.0, interval: float = 0.02
) -> Any:
    """The async :func:`_wait_until`: await ``pred()`` until it is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = await pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        await anyio.sleep(interval)


def _tool_error(result: CallToolResult) -> dict[str, Any]:
    """The SPEC error object of a refused call: the first text content, parsed as JSON."""
    assert result.is_error, f"expected a tool error, got {result.structured_content!r}"
    first = result.content[0]
    assert first.type == "text"
    obj = json.loads(first.text)
    assert isinstance(obj, dict)
    assert isinstance(obj.get("error"), str)
    assert isinstance(obj.get("message"), str)
    return obj


def _ok(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful call."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def note_text() -> Callable[..., str]:
    """``note_text(title, body, tags="a, b")``: a note that passes the default contract."""
    return _note


@pytest.fixture(scope="session")
def apoll() -> Callable[..., Awaitable[Any]]:
    return _apoll


@pytest.fixture(scope="session")
def tool_error() -> Callable[[CallToolResult], dict[str, Any]]:
    return _tool_error


@pytest.fixture(scope="session")
def ok() -> Callable[[CallToolResult], dict[str, Any]]:
    return _ok


@pytest.fixture(scope="session")
def hoard_bin() -> Path:
    """The installed console script, next to this interpreter."""
    path = Path(sys.executable).parent / "hoard"
    assert path.exists(), f"the console script is not installed at {path}"
    return path


@pytest.fixture(scope="session")
def example_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled example vault, shared by tests that only read it."""
    root = tmp_path_factory.mktemp("example") / "vault"
    shutil.copytree(EXAMPLE_VAULT, root)
    return root


@pytest.fixture(scope="session")
def example_hoard(example_vault: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hoard]:
    with Hoard(example_vault, tmp_path_factory.mktemp("example-state")) as hoard:
        yield hoard


@pytest.fixture
def protected_vault(tmp_path: Path) -> Path:
    """A small vault with ``protected = ["secret/**"]``:

    - ``secret/plan.md`` holds :data:`SECRET_WORD` and links to ``tech/hub.md``;
    - ``tech/hub.md`` links to ``[[plan]]`` (the protected note);
    - ``personal-notes/diary.md`` is private (the default glob) and holds :data:`PRIVATE_WORD`.
    """
    root = tmp_path / "vault"
    for folder in ("secret", "tech", "personal-notes"):
        (root / folder).mkdir(parents=True)
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    (root / "secret" / "plan.md").write_text(
        _note("Takeover plan", f"The {SECRET_WORD} plan, in full. Coordinate through [[hub]]."),
        encoding="utf-8",
    )
    (root / "tech" / "hub.md").write_text(
        _note("Hub", "The hub of everything. The plan lives in [[plan]]."), encoding="utf-8"
    )
    (root / "tech" / "other.md").write_text(
        _note("Other", "An ordinary note about gardening."), encoding="utf-8"
    )
    (root / "personal-notes" / "diary.md").write_text(
        f"# Diary\n\nToday the {PRIVATE_WORD} bloomed.\n", encoding="utf-8"
    )
    return root


@pytest.fixture
def protected_state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def protected_hoard(protected_vault: Path, protected_state: Path) -> Iterator[Hoard]:
    with Hoard(protected_vault, protected_state) as hoard:
        yield hoard


@pytest.fixture(scope="session")
def agent() -> Caller:
    """A non-owner caller with the read scope only."""
    return Caller("agent", frozenset({"read"}), "propose")


# -- HTTP ------------------------------------------------------------------------------------


class LiveServer:
    """One uvicorn server on 127.0.0.1 in a background thread."""

    def __init__(self, mcp: HoardMCP, tokens: TokenStore, max_body: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.host = f"127.0.0.1:{self.port}"
        self.url = f"http://{self.host}"
        kwargs: dict[str, Any] = {} if max_body is None else {"max_body": max_body}
        app = build_app(mcp, tokens, "127.0.0.1", self.port, **kwargs)
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> None:
        self.thread.start()

        def answers() -> bool:
            if not self.server.started:
                return False
            try:
                httpx2.get(f"{self.url}/healthz", timeout=2.0)
            except httpx2.TransportError:
                return False
            return True

        _wait_until(answers, timeout=15.0)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15.0)
        self.sock.close()


@pytest.fixture(scope="module")
def http_server() -> Iterator[Callable[..., LiveServer]]:
    """``http_server(mcp, tokens, max_body=None)`` starts a real uvicorn for the module."""
    started: list[LiveServer] = []

    def start(mcp: HoardMCP, tokens: TokenStore, max_body: int | None = None) -> LiveServer:
        live = LiveServer(mcp, tokens, max_body)
        started.append(live)
        live.start()
        return live

    yield start
    for live in started:
        live.stop()


@pytest.fixture(scope="session")
def initialize_request() -> dict[str, Any]:
    """A JSON-RPC initialize request, for raw HTTP checks below the SDK client."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hoard-tests", "version": "0"},
        },
    }


@pytest.fixture(scope="session")
def mcp_headers() -> Callable[[str | None], dict[str, str]]:
    """Headers a Streamable HTTP client sends, with an optional bearer token."""

    def headers(token: str | None) -> dict[str, str]:
        out = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        if token is not None:
            out["Authorization"] = f"Bearer {token}"
        return out

    return headers


@pytest.fixture(scope="session")
def assert_no_internals() -> Callable[[str], None]:
    """An error body must not carry stack traces or source locations."""

    def check(body: str) -> None:
        assert "Traceback" not in body
        assert 'File "' not in body
        assert re.search(r"\.py\b[\"']?(,| line|:\d)", body) is None, body

    return check
