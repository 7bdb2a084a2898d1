"""Plain helpers shared by the whole suite (the fixtures in ``tests/conftest.py`` hand most of
them out; conftests and test modules that need them outside a fixture import them from here).

- :func:`note_text`: THE builder of a note that passes the default frontmatter contract;
- :func:`write_file` / :func:`write_note` / :func:`make_vault`: put files, notes or a whole
  small vault on disk the way an editor would;
- :func:`wait_until` / :func:`await_until`: poll a condition with a deadline (tests never
  sleep a fixed time);
- :func:`copy_example_vault`, :func:`hoard_env`, :func:`free_port`, :func:`sha`,
  :data:`EXAMPLE_VAULT`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn

EXAMPLE_VAULT = Path(__file__).resolve().parents[1] / "examples" / "vault"


def note_text(
    title: str,
    body: str = "",
    *,
    tags: str | Iterable[str] = ("alpha", "beta"),
    type: str = "note",
    status: str = "active",
    updated: str = "2026-03-01",
    extra: str = "",
) -> str:
    """A note that passes the default frontmatter contract. ``tags`` is a list or the text
    between the brackets; ``extra`` is raw YAML lines added to the frontmatter. The body ends
    with one newline; an empty body adds nothing after the frontmatter."""
    tag_list = tags if isinstance(tags, str) else ", ".join(tags)
    head = (
        f"---\ntitle: {title}\ntype: {type}\nstatus: {status}\n"
        f"tags: [{tag_list}]\nupdated: {updated}\n{extra}---\n"
    )
    body = body.rstrip()
    return head + (body + "\n" if body else "")


def write_file(root: Path, rel: str, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, bytes as they are) at ``root/rel``, folders included."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def write_note(
    root: Path,
    rel: str,
    title: str = "",
    body: str = "",
    *,
    raw: str | bytes | None = None,
    **fields: Any,
) -> Path:
    """A :func:`note_text` note (title defaults to the file's stem) at ``root/rel``; with
    ``raw=...`` the exact text or bytes instead."""
    if raw is None:
        raw = note_text(title or Path(rel).stem, body, **fields)
    return write_file(root, rel, raw)


def make_vault(
    root: Path, notes: Mapping[str, str | bytes] | None = None, *, config: str | None = None
) -> Path:
    """A small vault at ``root``: ``notes`` maps a relative path to its exact content (build
    it with :func:`note_text`); ``config`` is the text of its ``hoard.toml``."""
    root.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "hoard.toml").write_text(config, encoding="utf-8")
    for rel, data in (notes or {}).items():
        write_file(root, rel, data)
    return root


def copy_example_vault(dest: Path) -> Path:
    """A copy of the bundled example vault at ``dest`` (the original is never touched)."""
    shutil.copytree(EXAMPLE_VAULT, dest)
    return dest


def wait_until(pred: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02) -> Any:
    """Poll ``pred`` until it returns something truthy and return that; fail the test after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


async def await_until(
    pred: Callable[[], Awaitable[Any]], timeout: float = 10.0, interval: float = 0.02
) -> Any:
    """The async :func:`wait_until`: await ``pred()`` until it is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = await pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        await anyio.sleep(interval)


class LiveServer:
    """One uvicorn on 127.0.0.1 in a background thread. The port is bound at once, so the app
    (whose Host check must name the port) is built after it and handed to :meth:`start`."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.host = f"127.0.0.1:{self.port}"
        self.url = f"http://{self.host}"
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def start(self, app: Any, timeout: float = 20.0) -> None:
        """Serve ``app`` and return once ``/healthz`` answers."""
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5
        )
        server = self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()

        def answers() -> bool:
            if not server.started:
                return False
            try:
                httpx2.get(f"{self.url}/healthz", timeout=2.0)
            except httpx2.TransportError:
                return False
            return True

        wait_until(answers, timeout=timeout)

    def stop(self) -> None:
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(timeout=15.0)
        self.sock.close()


def hoard_env(tmp: Path) -> dict[str, str]:
    """The environment of a ``hoard`` child process: XDG folders under ``tmp`` so nothing
    lands in $HOME, unbuffered output."""
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg-config")
    env["XDG_STATE_HOME"] = str(tmp / "xdg-state")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


CHAIN_SECRET = "zanzibarite"


def chain_vault(root: Path) -> Path:
    """The read_code vault: three notes chained by links (``tech/start.md`` → ``middle`` →
    ``final``) and ``secret/plan.md``, protected, holding :data:`CHAIN_SECRET`."""
    return make_vault(
        root,
        {
            "tech/start.md": note_text("Compost heaps", "Compost basics. Go on to [[middle]]."),
            "tech/middle.md": note_text("Middle", "Halfway there. The end is [[final]]."),
            "tech/final.md": note_text("Final", "The buried treasure is under the oak."),
            "secret/plan.md": note_text("Plan", f"The {CHAIN_SECRET} plan. See [[start]]."),
        },
        config='protected = ["secret/**"]\n',
    )


def sha(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex: a note's revision."""
    return hashlib.sha256(data).hexdigest()


def nearest_found(near: Iterable[tuple[str, float]]) -> Future[list[tuple[str, float]]]:
    """The semantic side's nearest notes ``(path, cosine)`` as a search hands them to the
    searcher (a future), already found."""
    done: Future[list[tuple[str, float]]] = Future()
    done.set_result(list(near))
    return done
