"""The read_code sandbox: QuickJS (quickjs-ng) in a small pool of child processes.

The parent (this module) holds everything that matters: the vault, the index, the caller's
rights. A worker (:mod:`hoard.adapters.sandbox.worker`, started as ``python -I FILE`` with an
empty environment, so it never sees a credential or imports hoard) only runs JavaScript and,
for each ``await call(tool, args)``, asks the parent over its stdout. The parent runs the call
through ``host(tool, args)`` with the caller's rights and answers on the worker's stdin.

Limits and who enforces them:

- code size: the parent, before anything runs (``code_size``);
- wall clock, host calls included: the parent, which SIGKILLs the worker at the deadline
  (``time``) — some engine operations ignore QuickJS's interrupt, a killed process does not;
  the worker also arms ``alarm()`` so it dies on its own should the parent vanish;
- host calls: counted by the parent; the one past the limit kills the run (``calls``);
- memory and stack: the engine, inside the worker (``memory``, ``stack``), with an
  ``RLIMIT_AS`` on the worker process as a backstop;
- result size: measured on the JSON text of the result (``result_size``);
- logs: cut at the limit with a marker (never an error).

A worker whose run ended inside the protocol (a result or a JS error) is reused with a fresh
QuickJS context (its own runtime); any other ending (time, calls, a dead or confused worker)
kills it, and a replacement is started in the background. :meth:`Sandbox.close` (also run at
exit) leaves no child process behind.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import select
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoard.core.errors import Busy, HoardError, IoError, SandboxError, SandboxLimit
from hoard.core.models import RunResult

log = logging.getLogger("hoard.sandbox")

WORKER_FILE = Path(__file__).with_name("worker.py")
KIB = 1024
MIB = 1024 * 1024
MAX_RUNS_PER_WORKER = 50
"""A worker is replaced after this many runs (each in a fresh context) to bound any drift."""
WORKER_ADDRESS_SPACE = 1024 * MIB
"""RLIMIT_AS of a worker: the engine's own limit is 32 MiB; this only stops a runaway."""
LINE_CAP_SLACK = 4 * MIB

HostFn = Callable[[str, dict[str, Any]], Any]


@dataclass(frozen=True, slots=True)
class Limits:
    time_s: float = 8.0
    memory: int = 32 * MIB
    stack: int = 256 * KIB
    code_size: int = 20 * KIB
    calls: int = 64
    result_size: int = 1 * MIB
    logs: int = 64 * KIB
    call_args: int = 1 * MIB


@dataclass
class _RunState:
    calls: list[dict[str, Any]] = field(default_factory=list)
    t0: float = 0.0

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self.t0) * 1000, 3)


class _WorkerGone(Exception):
    """The worker died, closed its pipe or broke the protocol."""


class _Deadline(Exception):
    """The wall clock ran out while waiting for the worker."""


class _Worker:
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
            raise _WorkerGone(f"cannot write to the worker: {exc}") from exc

    def recv(self, deadline: float) -> dict[str, Any]:
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[: nl + 1]
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    raise _WorkerGone("the worker sent something that is not JSON") from exc
                if not isinstance(obj, dict):
                    raise _WorkerGone("the worker sent something that is not an object")
                return obj
            if len(self.buf) > self.line_cap:
                raise _WorkerGone("the worker sent an oversized message")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline
            poller = select.poll()
            poller.register(self.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
            if not poller.poll(max(1, int(remaining * 1000) + 1)):
                continue
            try:
                chunk = os.read(self.fd, 1 * MIB)
            except OSError as exc:
                raise _WorkerGone(f"cannot read from the worker: {exc}") from exc
            if not chunk:
                raise _WorkerGone("the worker exited")
            self.buf += chunk

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _close_at_exit(ref: weakref.ref[Sandbox]) -> None:
    sandbox = ref()
    if sandbox is not None:
        sandbox.close()


class Sandbox:
    """A pool of QuickJS worker processes. Thread-safe: each run takes a worker of its own;
    with none idle one is started, up to ``max_workers`` at once (then a run waits, bounded
    by its own wall clock, and gets ``busy``)."""

    def __init__(self, workers: int = 2, max_workers: int = 8, limits: Limits = Limits()) -> None:
        self.workers = max(0, workers)
        self.limits = limits
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._spawning = 0
        self._slots = threading.BoundedSemaphore(max(1, max_workers))
        self._closed = False
        for _ in range(self.workers):
            w = self._spawn()
            with self._lock:
                self._idle.append(w)
        atexit.register(_close_at_exit, weakref.ref(self))

    # -- pool -------------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        w = _Worker(self.limits)
        with self._lock:
            self._live.add(w)
            closed = self._closed
        if closed:
            self._discard(w)
            raise IoError("the sandbox is closed")
        return w

    def _discard(self, w: _Worker) -> None:
        w.kill()
        with self._lock:
            self._live.discard(w)

    def _acquire(self, deadline: float) -> _Worker:
        if not self._slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise Busy("every sandbox worker is busy; try again shortly")
        try:
            while True:
                with self._lock:
                    if self._closed:
                        raise IoError("the sandbox is closed")
                    w = self._idle.pop() if self._idle else None
                if w is None:
                    return self._spawn()
                if w.alive():
                    return w
                self._discard(w)
        except BaseException:
            self._slots.release()
            raise

    def _release(self, w: _Worker, reusable: bool) -> None:
        try:
            w.runs += 1
            keep = reusable and w.runs < MAX_RUNS_PER_WORKER and w.alive() and not w.buf
            if keep:
                with self._lock:
                    if not self._closed and len(self._idle) < self.workers:
                        self._idle.append(w)
                        return
            self._discard(w)
        finally:
            self._slots.release()
            self._replenish()

    def _replenish(self) -> None:
        with self._lock:
            missing = self.workers - len(self._idle) - self._spawning
            if self._closed or missing <= 0:
                return
            self._spawning += missing
        threading.Thread(
            target=self._replenish_run, args=(missing,), name="hoard-sandbox-spawn", daemon=True
        ).start()

    def _replenish_run(self, n: int) -> None:
        for _ in range(n):
            try:
                w = self._spawn()
            except Exception as exc:
                log.warning("could not start a sandbox worker: %s", exc)
                with self._lock:
                    self._spawning -= 1
                continue
            with self._lock:
                self._spawning -= 1
                kept = not self._closed and len(self._idle) < self.workers
                if kept:
                    self._idle.append(w)
            if not kept:
                self._discard(w)

    def child_pids(self) -> list[int]:
        """The live worker processes (for tests and diagnostics)."""
        with self._lock:
            return sorted(w.pid for w in self._live if w.alive())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._live)
            self._idle.clear()
        for w in workers:
            self._discard(w)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs -------------------------------------------------------------------------------

    def run(self, code: str, host: HostFn, limits: Limits | None = None) -> RunResult:
        """Run ``code`` (an async function body) and return its result; every refusal is a
        :class:`SandboxLimit` (``limit`` names it), :class:`SandboxError` or ``busy``."""
        lim = limits if limits is not None else self.limits
        if not isinstance(code, str):
            raise SandboxError("code must be a string")
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > lim.code_size:
            raise SandboxLimit(
                f"the code is {size} bytes; the limit is {lim.code_size}",
                limit="code_size",
                size=size,
            )
        state = _RunState(t0=time.monotonic())
        deadline = state.t0 + lim.time_s
        w = self._acquire(deadline)
        reusable = False
        try:
            reply = self._drive(w, code, host, lim, state, deadline)
            reusable = True
            return self._finish(reply, state, lim)
        except _Deadline:
            raise SandboxLimit(
                f"the script ran past the {lim.time_s:g} s wall clock",
                limit="time",
                calls=state.calls,
                elapsed_ms=state.elapsed_ms(),
            ) from None
        except _WorkerGone as exc:
            if time.monotonic() >= deadline:
                raise SandboxLimit(
                    f"the script ran past the {lim.time_s:g} s wall clock",
                    limit="time",
                    calls=state.calls,
                    elapsed_ms=state.elapsed_ms(),
                ) from None
            log.warning("sandbox worker %d failed: %s", w.pid, exc)
            raise SandboxLimit(
                "the sandbox process died (most likely it ran out of memory)",
                limit="memory",
                calls=state.calls,
                elapsed_ms=state.elapsed_ms(),
            ) from None
        finally:
            self._release(w, reusable)

    def _drive(
        self,
        w: _Worker,
        code: str,
        host: HostFn,
        lim: Limits,
        state: _RunState,
        deadline: float,
    ) -> dict[str, Any]:
        w.send(
            {
                "type": "job",
                "code": code,
                "memory": lim.memory,
                "stack": lim.stack,
                "max_result": lim.result_size,
                "max_logs": lim.logs,
                "max_arg": lim.call_args,
                "alarm_s": int(lim.time_s) + 3,
            }
        )
        while True:
            msg = w.recv(deadline)
            kind = msg.get("type")
            if kind in ("done", "error"):
                return msg
            if kind != "call":
                raise _WorkerGone(f"unexpected message {kind!r}")
            if len(state.calls) >= lim.calls:
                raise SandboxLimit(
                    f"the script made more than {lim.calls} calls",
                    limit="calls",
                    calls=state.calls,
                    elapsed_ms=state.elapsed_ms(),
                )
            w.send(self._host_call(msg, host, state))
            if time.monotonic() >= deadline:
                raise _Deadline

    @staticmethod
    def _host_call(msg: dict[str, Any], host: HostFn, state: _RunState) -> dict[str, Any]:
        tool = str(msg.get("tool"))
        args = msg.get("args")
        t = time.perf_counter()
        record: dict[str, Any] = {"tool": tool}
        try:
            if not isinstance(args, dict):
                raise SandboxError("call(tool, args): args must be an object")
            value = host(tool, args)
            reply: dict[str, Any] = {"ok": True, "value": value}
            json.dumps(reply)  # fail here, not halfway through a write
        except HoardError as exc:
            reply = {"ok": False, "error": exc.code, "message": exc.message}
            record["error"] = exc.code
        except Exception:
            log.exception("a read_code host call to %r failed unexpectedly", tool)
            reply = {"ok": False, "error": "io_error", "message": "internal error"}
            record["error"] = "io_error"
        record["elapsed_ms"] = round((time.perf_counter() - t) * 1000, 3)
        state.calls.append(record)
        return reply

    @staticmethod
    def _finish(reply: dict[str, Any], state: _RunState, lim: Limits) -> RunResult:
        logs = [str(x) for x in reply.get("logs") or []]
        if reply.get("type") == "error":
            details: dict[str, Any] = {
                "calls": state.calls,
                "logs": logs,
                "elapsed_ms": state.elapsed_ms(),
            }
            message = str(reply.get("message") or "the script failed")
            if reply.get("error") == "sandbox_limit":
                limit = str(reply.get("limit") or "memory")
                raise SandboxLimit(message, limit=limit, **details)
            raise SandboxError(message, line=reply.get("line"), **details)
        text = reply.get("result")
        if not isinstance(text, str):
            raise SandboxError("the sandbox returned no result", calls=state.calls, logs=logs)
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > lim.result_size:
            raise SandboxLimit(
                f"the result is {size} bytes; the limit is {lim.result_size}",
                limit="result_size",
                calls=state.calls,
                logs=logs,
                elapsed_ms=state.elapsed_ms(),
            )
        return RunResult(
            result=json.loads(text), logs=logs, calls=state.calls, elapsed_ms=state.elapsed_ms()
        )
