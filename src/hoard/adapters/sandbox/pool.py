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

This module is the pool; :mod:`.worker_process` is the handle on one worker process,
:mod:`.run_protocol` one run's conversation with it, :mod:`.limits` the limits.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
import weakref

from hoard.adapters.sandbox.limits import Limits
from hoard.adapters.sandbox.run_protocol import HostFn, RunState, converse, result_of
from hoard.adapters.sandbox.worker_process import DeadlinePassed, WorkerGone, WorkerProcess
from hoard.core.errors import Busy, IoError, SandboxError, SandboxLimit
from hoard.core.models import RunResult

__all__ = ["HostFn", "Limits", "Sandbox"]

log = logging.getLogger("hoard.sandbox")

MAX_RUNS_PER_WORKER = 50
"""A worker is replaced after this many runs (each in a fresh context) to bound any drift."""
DEFAULT_LIMITS = Limits()


def _close_at_exit(ref: weakref.ref[Sandbox]) -> None:
    sandbox = ref()
    if sandbox is not None:
        sandbox.close()


class Sandbox:
    """A pool of QuickJS worker processes. Thread-safe: each run takes a worker of its own;
    with none idle one is started, up to ``max_workers`` at once (then a run waits, bounded
    by its own wall clock, and gets ``busy``)."""

    def __init__(
        self, workers: int = 2, max_workers: int = 8, limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.workers = max(0, workers)
        self.limits = limits
        self._lock = threading.Lock()
        self._idle: list[WorkerProcess] = []
        self._live: set[WorkerProcess] = set()
        self._spawning = 0
        self._slots = threading.BoundedSemaphore(max(1, max_workers))
        self._closed = False
        for _ in range(self.workers):
            worker = self._spawn()
            with self._lock:
                self._idle.append(worker)
        atexit.register(_close_at_exit, weakref.ref(self))

    # -- pool -------------------------------------------------------------------------------

    def _spawn(self) -> WorkerProcess:
        worker = WorkerProcess(self.limits)
        with self._lock:
            self._live.add(worker)
            closed = self._closed
        if closed:
            self._discard(worker)
            raise IoError("the sandbox is closed")
        return worker

    def _discard(self, worker: WorkerProcess) -> None:
        worker.kill()
        with self._lock:
            self._live.discard(worker)

    def _acquire(self, deadline: float) -> WorkerProcess:
        if not self._slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise Busy("every sandbox worker is busy; try again shortly")
        try:
            while True:
                with self._lock:
                    if self._closed:
                        raise IoError("the sandbox is closed")
                    worker = self._idle.pop() if self._idle else None
                if worker is None:
                    return self._spawn()
                if worker.alive():
                    return worker
                self._discard(worker)
        except BaseException:
            self._slots.release()
            raise

    def _release(self, worker: WorkerProcess, reusable: bool) -> None:
        try:
            worker.runs += 1
            keep = (
                reusable and worker.runs < MAX_RUNS_PER_WORKER and worker.alive() and not worker.buf
            )
            if keep:
                with self._lock:
                    if not self._closed and len(self._idle) < self.workers:
                        self._idle.append(worker)
                        return
            self._discard(worker)
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
                worker = self._spawn()
            except Exception as exc:
                log.warning("could not start a sandbox worker: %s", exc)
                with self._lock:
                    self._spawning -= 1
                continue
            with self._lock:
                self._spawning -= 1
                kept = not self._closed and len(self._idle) < self.workers
                if kept:
                    self._idle.append(worker)
            if not kept:
                self._discard(worker)

    def child_pids(self) -> list[int]:
        """The live worker processes (for tests and diagnostics)."""
        with self._lock:
            return sorted(worker.pid for worker in self._live if worker.alive())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._live)
            self._idle.clear()
        for worker in workers:
            self._discard(worker)

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
        run_limits = limits if limits is not None else self.limits
        if not isinstance(code, str):
            raise SandboxError("code must be a string")
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > run_limits.code_size:
            raise SandboxLimit(
                f"the code is {size} bytes; the limit is {run_limits.code_size}",
                limit="code_size",
                size=size,
            )
        state = RunState(t0=time.monotonic())
        deadline = state.t0 + run_limits.time_s
        worker = self._acquire(deadline)
        reusable = False
        try:
            reply = converse(worker, code, host, run_limits, state, deadline)
            reusable = True
            return result_of(reply, state, run_limits)
        except DeadlinePassed:
            raise _past_wall_clock(run_limits, state) from None
        except WorkerGone as exc:
            if time.monotonic() >= deadline:
                raise _past_wall_clock(run_limits, state) from None
            log.warning("sandbox worker %d failed: %s", worker.pid, exc)
            raise SandboxLimit(
                "the sandbox process died (most likely it ran out of memory)",
                limit="memory",
                calls=state.calls,
                elapsed_ms=state.elapsed_ms(),
            ) from None
        finally:
            self._release(worker, reusable)


def _past_wall_clock(run_limits: Limits, state: RunState) -> SandboxLimit:
    return SandboxLimit(
        f"the script ran past the {run_limits.time_s:g} s wall clock",
        limit="time",
        calls=state.calls,
        elapsed_ms=state.elapsed_ms(),
    )
