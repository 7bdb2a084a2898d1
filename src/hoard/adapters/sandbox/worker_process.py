"""The parent's handle on one sandbox worker process: start it, speak newline-delimited JSON
with it under a deadline, kill it.

The worker (:mod:`hoard.adapters.sandbox.worker`) is started as ``python -I FILE`` with an
empty environment, so it never sees a credential or imports hoard.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hoard.adapters.sandbox.limits import MIB, Limits

WORKER_FILE = Path(__file__).with_name("worker.py")
WORKER_ADDRESS_SPACE = 1024 * MIB
"""RLIMIT_AS of a worker: the engine's own limit is 32 MiB; this only stops a runaway."""
LINE_CAP_SLACK = 4 * MIB


class WorkerGone(Exception):
    """The worker died, closed its pipe or broke the protocol."""


class DeadlinePassed(Exception):
    """The wall clock ran out while waiting for the worker."""


class WorkerProcess:
    def __init__(self, limits: Limits) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER_FILE), str(WORKER_ADDRESS_SPACE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # a crashing worker's traceback belongs in the server log
            env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"},
            cwd="/",
            close_fds=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.fd = self.proc.stdout.fileno()
        self.buf = bytearray()
        self.runs = 0
        self.line_cap = 2 * limits.result_size + limits.logs * 2 + LINE_CAP_SLACK

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, obj: dict[str, Any]) -> None:
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"
        try:
            self.stdin.write(data)
            self.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerGone(f"cannot write to the worker: {exc}") from exc

    def recv(self, deadline: float) -> dict[str, Any]:
        while True:
            message = self._next_message()
            if message is not None:
                return message
            if len(self.buf) > self.line_cap:
                raise WorkerGone("the worker sent an oversized message")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlinePassed
            poller = select.poll()
            poller.register(self.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
            if not poller.poll(max(1, int(remaining * 1000) + 1)):
                continue
            try:
                chunk = os.read(self.fd, 1 * MIB)
            except OSError as exc:
                raise WorkerGone(f"cannot read from the worker: {exc}") from exc
            if not chunk:
                raise WorkerGone("the worker exited")
            self.buf += chunk

    def _next_message(self) -> dict[str, Any] | None:
        """The first complete line in the buffer as a JSON object, or None if there is none."""
        nl = self.buf.find(b"\n")
        if nl < 0:
            return None
        line = bytes(self.buf[:nl])
        del self.buf[: nl + 1]
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise WorkerGone("the worker sent something that is not JSON") from exc
        if not isinstance(obj, dict):
            raise WorkerGone("the worker sent something that is not an object")
        return obj

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
