"""Fixtures for the HTTP surface, two kinds of live server on a free loopback port:

- ``http_server(mcp, tokens, max_body=None)``: the app of :func:`build_app` under a real
  uvicorn in a background thread of the test process, for the module;
- ``hoard_http(**tokens)``: a real ``hoard serve --http`` (the installed console script in a
  subprocess), with its own tokens file and state folder; ``module_hoard_http`` is the same
  for servers shared by a module.

``hoard_http(**tokens)`` starts one server; each keyword names a caller and its scopes
(``reader="read"``), then its write mode when it is not ``propose``
(``writer="read,write direct"``); the fixture hands back the URL, the tokens and the
process, and stops the server at the end of the test (SIGTERM, then it must exit by itself).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.callers import CallerFile, in_store, open_callers
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import EXAMPLE_VAULT, LiveServer, free_port, hoard_env, wait_until


@dataclass
class HttpServer:
    proc: subprocess.Popen[bytes]
    port: int
    tokens: dict[str, str]
    tokens_file: Path
    stderr_file: Path
    vault: Path
    stopped: bool = field(default=False)
    tokens_option: list[str] = field(default_factory=list)
    """``--tokens FILE`` for ``hoard token``; none when the callers are a shared store's."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def log(self) -> str:
        return self.stderr_file.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait: a server that keeps a dead stream open never exits."""
        if not self.stopped:
            self.stopped = True
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                pytest.fail(f"hoard serve did not exit within {timeout} s of SIGTERM")
        return self.proc.returncode


def served_callers(tokens_file: Path) -> CallerFile:
    """The callers ``hoard serve`` checks: ``tokens_file``, or with ``HOARD_STORE_URL`` set
    (the suite run on PostgreSQL) the shared store's, which a tokens file cannot stand for."""
    return open_callers(None if os.environ.get("HOARD_STORE_URL") else tokens_file)


def start_serve(tmp: Path, hoard_bin: Path, n: int, *extra: str, **callers: str) -> HttpServer:
    """Start ``hoard serve --http`` number ``n`` over a copy of the example vault in ``tmp``
    and wait until it answers."""
    vault = tmp / f"vault{n}"
    shutil.copytree(EXAMPLE_VAULT, vault)
    tokens_file = tmp / f"tokens{n}.json"
    store = served_callers(tokens_file)
    option = ["--tokens", str(tokens_file)] if not in_store(store) else []
    tokens = {}
    for name, spec in callers.items():
        scopes, _, mode = spec.partition(" ")
        tokens[name] = store.add(name, scopes, mode or "propose")[1]
    store.close()
    port = free_port()
    stderr_file = tmp / f"serve{n}.log"
    with stderr_file.open("wb") as err:
        proc = subprocess.Popen(
            [
                str(hoard_bin),
                "serve",
                "--vault",
                str(vault),
                "--state-dir",
                str(tmp / f"state{n}"),
                *option,
                "--http",
                f"127.0.0.1:{port}",
                *extra,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=hoard_env(tmp),
        )
    server = HttpServer(proc, port, tokens, tokens_file, stderr_file, vault, tokens_option=option)

    def answers() -> bool:
        assert proc.poll() is None, f"hoard serve exited early:\n{server.log()}"
        try:
            return httpx2.get(f"{server.base}/healthz", timeout=2.0).status_code == 200
        except httpx2.TransportError:
            return False

    try:
        # the deadline is long: on a loaded machine `hoard serve` may take 10 s or more
        wait_until(answers, timeout=90.0)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture
def hoard_http(tmp_path: Path, hoard_bin: Path) -> Iterator[Callable[..., HttpServer]]:
    started: list[HttpServer] = []

    def start(*extra: str, **callers: str) -> HttpServer:
        server = start_serve(tmp_path, hoard_bin, len(started), *extra, **callers)
        started.append(server)
        return server

    yield start
    for server in started:
        if not server.stopped:
            server.stop()


@pytest.fixture(scope="module")
def module_hoard_http(
    tmp_path_factory: pytest.TempPathFactory, hoard_bin: Path
) -> Iterator[Callable[..., HttpServer]]:
    """Like ``hoard_http``, for servers a whole module shares (tests that never stop them):
    each is stopped when the module ends."""
    tmp = tmp_path_factory.mktemp("serve")
    started: list[HttpServer] = []

    def start(*extra: str, **callers: str) -> HttpServer:
        server = start_serve(tmp, hoard_bin, len(started), *extra, **callers)
        started.append(server)
        return server

    yield start
    for server in started:
        if not server.stopped:
            server.stop()


# -- in-process uvicorn ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server() -> Iterator[Callable[..., LiveServer]]:
    """``http_server(mcp, tokens, max_body=None)`` starts a real uvicorn for the module."""
    started: list[LiveServer] = []

    def start(mcp: HoardMCP, tokens: TokenStore, max_body: int | None = None) -> LiveServer:
        live = LiveServer()
        started.append(live)
        kwargs: dict[str, Any] = {} if max_body is None else {"max_body": max_body}
        live.start(build_app(mcp, tokens, "127.0.0.1", live.port, **kwargs), timeout=15.0)
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
