"""One read_code run's conversation with a worker: send the job, answer each host call with
the caller's rights, count the calls, and turn the worker's last reply into a result or an
error."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hoard.adapters.sandbox.limits import Limits
from hoard.adapters.sandbox.worker_process import DeadlinePassed, WorkerGone, WorkerProcess
from hoard.core.errors import HoardError, SandboxError, SandboxLimit
from hoard.core.models import RunResult

log = logging.getLogger("hoard.sandbox")

HostFn = Callable[[str, dict[str, Any]], Any]


@dataclass
class RunState:
    calls: list[dict[str, Any]] = field(default_factory=list)
    t0: float = 0.0

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self.t0) * 1000, 3)


def converse(
    worker: WorkerProcess,
    code: str,
    host: HostFn,
    limits: Limits,
    state: RunState,
    deadline: float,
) -> dict[str, Any]:
    """Send the job and answer the worker's host calls until it replies ``done``/``error``."""
    worker.send(
        {
            "type": "job",
            "code": code,
            "memory": limits.memory,
            "stack": limits.stack,
            "max_result": limits.result_size,
            "max_logs": limits.logs,
            "max_arg": limits.call_args,
            "alarm_s": int(limits.time_s) + 3,
        }
    )
    while True:
        msg = worker.recv(deadline)
        kind = msg.get("type")
        if kind in ("done", "error"):
            return msg
        if kind != "call":
            raise WorkerGone(f"unexpected message {kind!r}")
        if len(state.calls) >= limits.calls:
            raise SandboxLimit(
                f"the script made more than {limits.calls} calls",
                limit="calls",
                calls=state.calls,
                elapsed_ms=state.elapsed_ms(),
            )
        worker.send(call_host(msg, host, state))
        if time.monotonic() >= deadline:
            raise DeadlinePassed


def call_host(msg: dict[str, Any], host: HostFn, state: RunState) -> dict[str, Any]:
    """Run one ``call(tool, args)`` through ``host`` and record it; the reply for the worker."""
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


def result_of(reply: dict[str, Any], state: RunState, limits: Limits) -> RunResult:
    """The worker's final reply as a :class:`RunResult`, or the error it stands for."""
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
    if size > limits.result_size:
        raise SandboxLimit(
            f"the result is {size} bytes; the limit is {limits.result_size}",
            limit="result_size",
            calls=state.calls,
            logs=logs,
            elapsed_ms=state.elapsed_ms(),
        )
    return RunResult(
        result=json.loads(text), logs=logs, calls=state.calls, elapsed_ms=state.elapsed_ms()
    )
