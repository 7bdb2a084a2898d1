"""Fixtures for the HTTP surface: a real ``hoard serve --http`` (the installed console
script in a subprocess) on a free loopback port, with its own tokens file and state folder.

``hoard_http(**tokens)`` starts one server; each keyword names a caller and its scopes
(``reader="read"``); the fixture hands back the URL, the tokens and the process, and stops
the server at the end of the test (SIGTERM, then it must exit by itself).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest

from hoard.adapters.tokens import TokenStore

EXAMPLE_VAULT = Path(__file__).resolve().parents[3] / "examples" / "vault"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(pred: Callable[[], object], timeout: float = 90.0, interval: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


@dataclass
class HttpServer:
    proc: subprocess.Popen[bytes]
    port: int
    tokens: dict[str, str]
    tokens_file: Path
    stderr_file: Path
    vault: Path
    stopped: bool = field(default=False)

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


def hoard_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg-config")
    env["XDG_STATE_HOME"] = str(tmp / "xdg-state")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(scope="session")
def hoard_bin() -> Path:
    path = Path(sys.executable).parent / "hoard"
    assert path.exists(), f"the console script is not installed at {path}"
    return path


@pytest.fixture
def hoard_http(tmp_path: Path, hoard_bin: Path) -> Iterator[Callable[..., HttpServer]]:
    started: list[HttpServer] = []

    def start(*extra: str, **callers: str) -> HttpServer:
        n = len(started)
        vault = tmp_path / f"vault{n}"
        shutil.copytree(EXAMPLE_VAULT, vault)
        tokens_file = tmp_path / f"tokens{n}.json"
        store = TokenStore(tokens_file)
        tokens = {name: store.add(name, scopes, "propose")[1] for name, scopes in callers.items()}
        port = free_port()
        stderr_file = tmp_path / f"serve{n}.log"
        with stderr_file.open("wb") as err:
            proc = subprocess.Popen(
                [
                    str(hoard_bin),
                    "serve",
                    "--vault",
                    str(vault),
                    "--state-dir",
                    str(tmp_path / f"state{n}"),
                    "--tokens",
                    str(tokens_file),
                    "--http",
                    f"127.0.0.1:{port}",
                    *extra,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=hoard_env(tmp_path),
            )
        server = HttpServer(proc, port, tokens, tokens_file, stderr_file, vault)
        started.append(server)

        def answers() -> bool:
            assert proc.poll() is None, f"hoard serve exited early:\n{server.log()}"
            try:
                return httpx2.get(f"{server.base}/healthz", timeout=2.0).status_code == 200
            except httpx2.TransportError:
                return False

        wait_until(answers)
        return server

    yield start
    for server in started:
        if not server.stopped:
            server.stop()
