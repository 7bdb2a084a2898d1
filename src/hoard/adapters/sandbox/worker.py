"""The read_code sandbox worker: one child process running QuickJS (quickjs-ng).

Started by :class:`hoard.adapters.sandbox.pool.Sandbox` as ``python -I <this file>``: it imports
nothing of hoard (the parent holds the vault, the index and every credential; this process
sees none of them) and speaks newline-delimited JSON with the parent. Its stdout is the
protocol channel and nothing else writes there: ``print`` goes to stderr.

Parent → worker::

    {"type": "job", "code": str, "memory": int, "stack": int,
     "max_result": int, "max_logs": int, "max_arg": int}
    {"ok": true, "value": ...}                            # reply to a call
    {"ok": false, "error": CODE, "message": str}          # a refused call

Worker → parent::

    {"type": "call", "tool": str, "args": {...}}
    {"type": "done", "result": "<JSON text>", "logs": [...]}
    {"type": "error", "error": "sandbox_error" | "sandbox_limit", "message": str,
     "line": int | null, "limit": str | null, "logs": [...]}

Each job gets a fresh context (its own QuickJS runtime, 32 MiB memory, 256 KiB stack); a
context that ran out of memory is unusable, so none is ever reused. ``call`` blocks this
process while the parent runs the service call and returns a settled Promise, so scripts
``await`` it as if it were asynchronous. There are no timers, modules, ``std``/``os``,
filesystem or network in the context: only the ECMAScript standard library, ``call`` and
``console.log``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import sys
from typing import Any, BinaryIO

import _quickjs  # type: ignore[import-not-found]

LINE_RE = re.compile(r"<input>:(\d+)")
THROWS_NULL = re.compile(r"(throw|reject)\s*\(?\s*null\b")
BOOT_OFFSET = 100_000
"""The bootstrap is evaluated below this many blank lines, so its stack frames never pass
for the script's own (a script is at most a few tens of thousands of lines)."""
OOM_MARKERS = ("out of memory", "string too long")
STACK_MARKERS = ("Maximum call stack size exceeded", "stack overflow")
LOG_TRUNCATED = "[logs truncated at the 64 KiB limit]"

# The user's code runs on line 1 of the wrapper, so its line numbers are the script's own.
BOOTSTRAP = r"""
(() => {
  const host = globalThis.__hoard_host;
  const hostLog = globalThis.__hoard_log;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const ErrorCtor = Error;
  const StringCtor = String;
  const isArray = Array.isArray;
  const MAX_ARG = __MAX_ARG__;
  const MAX_LOG = __MAX_LOG__;
  const MAX_RESULT = __MAX_RESULT__;
  const TOO_LARGE = {};
  // Stringify the return value keeping a lower bound of its UTF-8 size (a UTF-16 unit is at
  // least one byte): a result over the limit stops once that is certain, before memory runs out.
  const bounded = (value) => {
    let size = 0;
    const measure = function (key, v) {
      if (typeof v === "string") size += v.length + 2;
      else if (v === undefined || typeof v === "function" || typeof v === "symbol") return v;
      else size += 1;
      if (key !== "" && !isArray(this)) size += key.length + 3;
      if (size > MAX_RESULT) throw TOO_LARGE;
      return v;
    };
    return stringify(value, measure);
  };
  delete globalThis.__hoard_host;
  delete globalThis.__hoard_log;
  // No high-resolution clock (timing probes); Date stays, it is ordinary data.
  delete globalThis.performance;
  const show = (v) => {
    if (typeof v === "string") return v;
    try {
      const s = stringify(v);
      return s === undefined ? StringCtor(v) : s;
    } catch (e) {
      return StringCtor(v);
    }
  };
  const call = (tool, args) => {
    let text;
    try {
      text = stringify(args === undefined ? {} : args);
    } catch (e) {
      return PromiseCtor.reject(new ErrorCtor("call arguments must be JSON-serialisable"));
    }
    if (typeof tool !== "string") {
      return PromiseCtor.reject(new ErrorCtor("call(tool, args): tool must be a string"));
    }
    if (text === undefined || text.length > MAX_ARG) {
      return PromiseCtor.reject(new ErrorCtor("call arguments are missing or too large"));
    }
    const reply = parse(host(tool, text));
    if (reply.ok) return PromiseCtor.resolve(reply.value);
    const err = new ErrorCtor(reply.error + ": " + reply.message);
    err.code = reply.error;
    return PromiseCtor.reject(err);
  };
  const log = (...parts) => {
    let line = parts.map(show).join(" ");
    if (line.length > MAX_LOG) line = line.slice(0, MAX_LOG);
    hostLog(line);
  };
  Object.defineProperty(globalThis, "call", { value: call, writable: false, configurable: false });
  const console = { log, info: log, warn: log, error: log, debug: log };
  Object.defineProperty(globalThis, "console", { value: console, writable: true });
  const state = { done: false };
  globalThis.__hoard_state = (key) => state[key];
  globalThis.__hoard_finish = (promise) => {
    promise.then(
      (value) => {
        state.done = true;
        try {
          const text = bounded(value === undefined ? null : value);
          state.result = text === undefined ? "null" : text;
        } catch (e) {
          state.error = true;
          state.toolarge = e === TOO_LARGE;
          state.message = "the return value is not JSON-serialisable: " + StringCtor(e);
        }
      },
      (e) => {
        state.done = true;
        state.error = true;
        state.isnull = e === null;
        try {
          state.name = e && e.name ? StringCtor(e.name) : "";
          state.message = e && e.message !== undefined ? StringCtor(e.message) : StringCtor(e);
          state.stack = e && e.stack ? StringCtor(e.stack) : "";
        } catch (inner) {
          state.message = "an exception that cannot be shown";
        }
      },
    );
  };
})();
"""


class Channel:
    """Newline-delimited JSON over the real stdout / stdin file descriptors."""

    def __init__(self, inp: BinaryIO, out: BinaryIO) -> None:
        self.inp = inp
        self.out = out

    def send(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
        self.out.flush()

    def recv(self) -> dict[str, Any] | None:
        line = self.inp.readline()
        if not line:
            return None
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        return obj if isinstance(obj, dict) else {}


class Logs:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.size = 0
        self.lines: list[str] = []
        self.truncated = False

    def add(self, line: str) -> None:
        if self.truncated:
            return
        n = len(line.encode("utf-8", "replace"))
        if self.size + n > self.cap:
            room = self.cap - self.size
            if room > 0:
                self.lines.append(line.encode("utf-8", "replace")[:room].decode("utf-8", "ignore"))
            self.lines.append(LOG_TRUNCATED)
            self.truncated = True
            return
        self.size += n
        self.lines.append(line)


def line_of(text: str) -> int | None:
    """The first stack frame that is the script's own (not the bootstrap's)."""
    for m in LINE_RE.finditer(text or ""):
        line = int(m.group(1))
        if line < BOOT_OFFSET:
            return line
    return None


def near_limit(ctx: Any, limit: int) -> bool:
    try:
        used = int(ctx.memory().get("memory_used_size", 0))
    except Exception:
        return True
    return used >= limit * 0.8


def classify(message: str, ctx: Any, memory: int, engine: bool = False) -> str | None:
    """``engine``: the exception escaped evaluation or the job pump itself (a script's own
    throw inside the async body becomes a rejection instead)."""
    if any(m in message for m in STACK_MARKERS):
        return "stack"
    if any(m in message for m in OOM_MARKERS):
        return "memory"
    if engine and message.strip() in ("null", ""):
        return "memory"  # the engine could not even allocate the error object
    if message.strip() in ("null", "") and near_limit(ctx, memory):
        return "memory"
    return None


def clamp_line(line: int | None, code: str) -> int | None:
    """A parse error found at the wrapper's closing brace belongs to the script's last line."""
    if line is None:
        return None
    last = len(code.rstrip("\n").split("\n"))
    return max(1, min(line, last))


LIMIT_TEXT = {"memory": "the script ran out of memory", "stack": "the script overflowed its stack"}


def error_reply(message: str, line: int | None, limit: str | None, logs: Logs) -> dict[str, Any]:
    """A refused script: ``sandbox_limit`` naming the ``limit`` it hit, else ``sandbox_error``."""
    text, first = LIMIT_TEXT.get(limit or ""), message.strip()
    if text is not None:
        message = f"{text} ({first.splitlines()[0][:200]})" if first not in ("", "null") else text
    return {
        "type": "error",
        "error": "sandbox_error" if limit is None else "sandbox_limit",
        "limit": limit,
        "message": message,
        "line": line,
        "logs": logs.lines,
    }


def _new_context(job: dict[str, Any], chan: Channel, logs: Logs) -> tuple[Any, Any, Any]:
    """A fresh QuickJS context with the bootstrap in it: ``call`` asks the parent over
    ``chan``, ``console.log`` fills ``logs``. Returns the context and the bootstrap's
    ``finish`` and ``state`` functions."""
    ctx = _quickjs.Context()
    ctx.set_max_stack_size(int(job["stack"]))

    def host(tool: str, args_text: str) -> str:
        try:
            args = json.loads(args_text)
        except ValueError:
            args = None
        chan.send({"type": "call", "tool": str(tool), "args": args})
        reply = chan.recv()
        if reply is None:
            raise SystemExit(0)  # the parent went away
        return json.dumps(reply, ensure_ascii=False)

    def hostlog(line: str) -> None:
        logs.add(str(line))

    ctx.add_callable("__hoard_host", host)
    ctx.add_callable("__hoard_log", hostlog)
    boot = (
        BOOTSTRAP.replace("__MAX_ARG__", str(int(job["max_arg"])))
        .replace("__MAX_LOG__", str(int(job["max_logs"])))
        .replace("__MAX_RESULT__", str(int(job["max_result"])))
    )
    ctx.eval("\n" * BOOT_OFFSET + boot)
    # Taken before the script runs, so a script that rebinds the globals changes nothing.
    finish = ctx.get("__hoard_finish")
    state = ctx.get("__hoard_state")
    ctx.eval("delete globalThis.__hoard_finish; delete globalThis.__hoard_state;")
    return ctx, finish, state


def _settled_reply(
    code: str, ctx: Any, state: Any, memory: int, max_result: int, logs: Logs
) -> dict[str, Any]:
    """The reply for a script whose evaluation and job pump ended without an engine error:
    read how its promise settled."""
    try:
        done = bool(state("done"))
    except _quickjs.JSException as exc:
        return error_reply(str(exc), None, classify(str(exc), ctx, memory) or "memory", logs)
    if not done:
        return error_reply(
            "the script's promise never settled (it awaited something that never resolves)",
            None,
            None,
            logs,
        )
    too_large = f"the result is larger than {max_result} bytes"
    if state("toolarge"):
        return error_reply(too_large, None, "result_size", logs)
    if state("error"):
        name = str(state("name") or "")
        message = str(state("message") or "")
        stack = str(state("stack") or "")
        full = f"{name}: {message}" if name else message
        limit = classify(full, ctx, memory)
        if limit is None and state("isnull") and not THROWS_NULL.search(code):
            # On an out-of-memory the engine may not manage to allocate the error object and
            # throws null instead; a script that throws null itself says so in its source.
            limit = "memory"
        return error_reply(full, line_of(stack), limit, logs)
    result = str(state("result"))
    if len(result.encode("utf-8")) > max_result:
        return error_reply(too_large, None, "result_size", logs)
    return {"type": "done", "result": result, "logs": logs.lines}


def _run_job(job: dict[str, Any], chan: Channel) -> dict[str, Any]:
    code = str(job["code"])
    memory = int(job["memory"])
    logs = Logs(int(job["max_logs"]))
    ctx, finish, state = _new_context(job, chan, logs)
    # The limit is set after the bootstrap so its few objects never count against the script.
    ctx.set_memory_limit(memory)
    try:
        promise = ctx.eval("(async () => {" + code + "\n})()")
        finish(promise)
        while ctx.execute_pending_job():
            pass
    except _quickjs.StackOverflow as exc:
        return error_reply(str(exc), line_of(str(exc)), "stack", logs)
    except _quickjs.JSException as exc:
        text = str(exc)
        limit = classify(text, ctx, memory, engine=True)
        head = text.strip().splitlines()[0] if text.strip() else "the script failed"
        return error_reply(head if limit is None else text, line_of(text), limit, logs)
    return _settled_reply(code, ctx, state, memory, int(job["max_result"]), logs)


def harden(address_space: int) -> None:
    """Backstops that hold whatever the engine does: a ceiling on the address space, no core
    files."""
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if address_space > 0:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))


def run_job(job: dict[str, Any], chan: Channel) -> dict[str, Any]:
    reply = _run_job(job, chan)
    if reply.get("line") is not None:
        reply["line"] = clamp_line(int(reply["line"]), str(job["code"]))
    return reply


def main() -> int:
    harden(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    # Keep the real stdout for the protocol; anything else that writes "stdout" goes to stderr.
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    chan = Channel(sys.stdin.buffer, proto_out)
    while True:
        job = chan.recv()
        if job is None:
            return 0
        if job.get("type") != "job":
            continue
        # SIGALRM's default action ends this process: should the parent vanish without
        # killing a script that never yields, the kernel still stops it.
        signal.alarm(max(1, int(job.get("alarm_s") or 11)))
        try:
            reply = run_job(job, chan)
        except SystemExit:
            return 0
        except Exception as exc:  # never let one script take the worker's protocol down
            reply = {
                "type": "error",
                "error": "sandbox_error",
                "limit": None,
                "message": f"the sandbox failed: {type(exc).__name__}: {exc}",
                "line": None,
                "logs": [],
            }
        signal.alarm(0)
        chan.send(reply)


if __name__ == "__main__":
    sys.exit(main())
