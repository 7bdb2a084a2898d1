"""read_code: run a read-only script in the sandbox with the caller's rights.

The script's ``await call(tool, args)`` reaches exactly four service calls — search, read,
links, list — made here, in the server process, as ``caller``: protected notes stay hidden
without a grant and no write is reachable. The sandbox never sees the vault.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hoard.adapters.sandbox.pool import HostFn, Limits, Sandbox
from hoard.core.errors import InvalidArgument
from hoard.core.models import RunResult, to_json
from hoard.core.policy import Caller

TOOL_ARGS: dict[str, tuple[str, ...]] = {
    "search": ("query", "limit", "folder", "mode", "rerank"),
    "read": ("path", "offset", "max_bytes"),
    "links": ("path",),
    "list": ("path", "recursive", "limit"),
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "search": ("query",),
    "read": ("path",),
    "links": ("path",),
    "list": (),
}


def make_host(methods: dict[str, Callable[..., Any]], *, caller: Caller) -> HostFn:
    """``host(tool, args)`` for :meth:`Sandbox.run`: the four read tools, as ``caller``."""

    def host(tool: str, args: dict[str, Any]) -> Any:
        if tool not in TOOL_ARGS:
            raise InvalidArgument(
                f"unknown tool {tool!r}; call() reaches {', '.join(TOOL_ARGS)}", tool=tool
            )
        unknown = sorted(set(args) - set(TOOL_ARGS[tool]))
        if unknown:
            raise InvalidArgument(
                f"{tool}: unknown argument(s) {', '.join(unknown)}; "
                f"known: {', '.join(TOOL_ARGS[tool])}"
            )
        missing = [k for k in REQUIRED[tool] if args.get(k) is None]
        if missing:
            raise InvalidArgument(f"{tool}: missing argument(s) {', '.join(missing)}")
        for key in ("query", "path", "folder", "mode", "rerank"):
            if key in args and args[key] is not None and not isinstance(args[key], str):
                raise InvalidArgument(f"{tool}: {key} must be a string")
        kwargs = {k: v for k, v in args.items() if v is not None}
        return to_json(methods[tool](**kwargs, caller=caller))

    return host


def read_code(
    methods: dict[str, Callable[..., Any]],
    sandbox: Sandbox,
    code: str,
    limits: Limits | None = None,
    *,
    caller: Caller,
) -> RunResult:
    """Run ``code`` in ``sandbox`` with ``caller``'s read rights; raises its refusals."""
    return sandbox.run(code, make_host(methods, caller=caller), limits)


class CodeRunner:
    """read_code as a use-case: the sandbox's worker pool (started on first use, then kept
    warm) and the four read use-cases the scripts reach."""

    def __init__(self, methods: dict[str, Callable[..., Any]], workers: int = 2) -> None:
        if set(methods) != set(TOOL_ARGS):
            raise ValueError(f"read_code needs exactly {', '.join(TOOL_ARGS)}")
        self.methods = methods
        self.workers = workers
        self._sandbox: Sandbox | None = None
        self._lock = threading.Lock()

    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = Sandbox(workers=self.workers)
            return self._sandbox

    def run(self, code: str, limits: Limits | None = None, *, caller: Caller) -> RunResult:
        """Run ``code`` with ``caller``'s read rights; raises the sandbox's refusals."""
        return read_code(self.methods, self.sandbox(), code, limits, caller=caller)

    def close(self) -> None:
        """Stop the workers (a server's shutdown and :meth:`Hoard.close` call this)."""
        with self._lock:
            if self._sandbox is not None:
                self._sandbox.close()
                self._sandbox = None
