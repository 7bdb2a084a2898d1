"""Fixtures for black-box tests: the installed ``hoard`` console script run as a subprocess,
spoken to over stdio with raw JSON-RPC lines (so a test can also send bytes no SDK would).

Helpers are handed out as fixtures so test modules never import this file.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ANSWER_TIMEOUT_S = 20.0
START_TIMEOUT_S = 90.0
"""Starting takes seconds (importing the MCP SDK) and far longer on a loaded machine."""


def note_text(title: str, body: str, tags: str = "alpha, beta") -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [{tags}]\n"
        f"updated: 2026-03-01\n---\n{body.rstrip()}\n"
    )


class StdioHoard:
    """``hoard serve --stdio`` in a child process, driven line by line."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self._log = log.open("ab")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=env
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0
        self.request("initialize", _INIT, timeout=START_TIMEOUT_S)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def answer(self, timeout: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """The next message from the server that is not a notification."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the stdio server")
            try:
                msg = json.loads(self._lines.get(timeout=left))
            except queue.Empty as exc:
                raise TimeoutError("no answer from the stdio server") from exc
            if "id" in msg:
                return dict(msg)

    def request(
        self, method: str, params: dict[str, Any], timeout: float = ANSWER_TIMEOUT_S
    ) -> dict[str, Any]:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        msg = self.answer(timeout)
        assert msg.get("id") == self._next_id, msg
        return msg

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tool call's result object (``isError``, ``content``, ``structuredContent``)."""
        msg = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in msg, msg
        return dict(msg["result"])

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=15)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()


_INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "hoard-e2e", "version": "0"},
}


@pytest.fixture(scope="session")
def hoard_bin() -> Path:
    path = Path(sys.executable).parent / "hoard"
    assert path.exists(), f"the console script is not installed at {path}"
    return path


@pytest.fixture
def child_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg-state")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
def start_stdio(
    hoard_bin: Path, child_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[..., StdioHoard]]:
    """``start_stdio(vault, state, *extra_args)``: a running stdio server, stopped after."""
    started: list[StdioHoard] = []

    def start(vault: Path, state: Path, *extra: str) -> StdioHoard:
        argv = [str(hoard_bin), "serve", "--stdio", "--vault", str(vault)]
        argv += ["--state-dir", str(state), *extra]
        server = StdioHoard(argv, child_env, tmp_path / "server.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def module_stdio(
    hoard_bin: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., StdioHoard]]:
    """``start_stdio`` for one server shared by a module's tests (each start costs seconds)."""
    tmp = tmp_path_factory.mktemp("stdio")
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg-config")
    env["XDG_STATE_HOME"] = str(tmp / "xdg-state")
    started: list[StdioHoard] = []

    def start(vault: Path, state: Path, *extra: str) -> StdioHoard:
        argv = [str(hoard_bin), "serve", "--stdio", "--vault", str(vault)]
        argv += ["--state-dir", str(state), *extra]
        server = StdioHoard(argv, env, tmp / "server.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def poll() -> Callable[..., Any]:
    def wait(pred: Callable[[], Any], timeout: float = ANSWER_TIMEOUT_S) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = pred()
            if value:
                return value
            if time.monotonic() >= deadline:
                pytest.fail(f"condition not met within {timeout} s")
            time.sleep(0.05)

    return wait


@pytest.fixture
def make_note() -> Callable[[str, str], str]:
    return note_text
