"""Timing MCP tool calls: through the official client, as raw JSON-RPC POSTs (no client
library), and ``GET /healthz``. Every result is checked; errors are counted, never timed as
if they were answers."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from mcp import Client

from hoard.benchmark.rows import Row, call_label
from hoard.benchmark.server import proc_cpu_seconds

Check = Callable[[int, dict[str, Any]], str | None]
ArgsFor = Callable[[int], dict[str, Any]]
Targets = dict[str, list[tuple[str, float]]]
DEFAULT_PROTOCOL = "2026-07-28"


def structured(result: Any) -> dict[str, Any] | None:
    data = getattr(result, "structured_content", None)
    return data if isinstance(data, dict) else None


def error_text(result: Any) -> str:
    try:
        return str(result.content[0].text)
    except (AttributeError, IndexError):
        return repr(result)[:300]


class Runner:
    """One client session; each phase makes ``warmup`` calls (``i`` = 0 .. warmup-1), then
    ``n`` timed calls (``i`` = warmup ..)."""

    def __init__(
        self,
        client: Client,
        base: str,
        token: str,
        pid: int,
        n: int,
        warmup: int,
        targets: Targets,
        say: Callable[[str], None],
    ) -> None:
        self.c = client
        self.base = base
        self.token = token
        self.pid = pid
        self.n = n
        self.warmup = warmup
        self.targets = targets
        self.say = say
        self.rows: list[Row] = []
        self.protocol = DEFAULT_PROTOCOL

    def row(self, key: str, name: str, group: str = "http") -> Row:
        row = Row(key, name, group, targets=list(self.targets.get(key, [])))
        self.rows.append(row)
        return row

    async def _timed(self, row: Row, call: Callable[[int, bool], Awaitable[None]]) -> None:
        self.say(f"{row.name}: {self.warmup} warm-up + {self.n} timed")
        for i in range(self.warmup):
            await call(i, False)
        srv0, cli0 = proc_cpu_seconds(self.pid), time.process_time()
        for i in range(self.warmup, self.warmup + self.n):
            await call(i, True)
        row.client_cpu_ms = (time.process_time() - cli0) * 1000
        srv1 = proc_cpu_seconds(self.pid)
        if srv0 is not None and srv1 is not None:
            row.server_cpu_ms = (srv1 - srv0) * 1000

    async def phase(
        self,
        key: str,
        name: str,
        tool: str,
        args_for: ArgsFor,
        check: Check | None = None,
        group: str = "http",
    ) -> tuple[Row, list[dict[str, Any] | None]]:
        """Returns the row and the structured result of every call, warm-up included."""
        row = self.row(key, name, group)
        outputs: list[dict[str, Any] | None] = []

        async def call(i: int, timed: bool) -> None:
            args = args_for(i)
            t0 = time.perf_counter()
            res = await self.c.call_tool(tool, args)
            ms = (time.perf_counter() - t0) * 1000
            if timed:
                row.add(ms, call_label(args))
            outputs.append(self.check(row, i, res, check, timed))

        await self._timed(row, call)
        return row, outputs

    @staticmethod
    def check(
        row: Row, i: int, res: Any, check: Check | None, timed: bool
    ) -> dict[str, Any] | None:
        data = structured(res)
        problem: str | None = None
        if getattr(res, "is_error", False):
            problem = f"is_error: {error_text(res)}"
        elif data is None:
            problem = "no structured content"
        elif check is not None:
            problem = check(i, data)
        if problem:
            # Warm-up errors count too: a broken phase must not pass on its timed half.
            row.error(f"call {i}: {problem}" + ("" if timed else " (warm-up)"))
        return data

    async def raw_phase(
        self, http: httpx2.AsyncClient, key: str, name: str, tool: str, args_for: ArgsFor
    ) -> Row:
        """The same ``tools/call`` the client sends (one POST, JSON response), posted with
        plain httpx2 and parsed with ``json.loads``: the server's and HTTP's share of a call,
        without the MCP client library."""
        row = self.row(key, name, "floor")
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": self.protocol,
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        }
        meta = {
            "io.modelcontextprotocol/protocolVersion": self.protocol,
            "io.modelcontextprotocol/clientInfo": {"name": "hoard-bench", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        sizes: list[int] = []

        async def call(i: int, timed: bool) -> None:
            args = args_for(i)
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": args, "_meta": meta},
                }
            ).encode()
            t0 = time.perf_counter()
            r = await http.post(f"{self.base}/mcp", content=body, headers=headers)
            data = json.loads(r.content) if r.status_code == 200 else None
            ms = (time.perf_counter() - t0) * 1000
            if timed:
                row.add(ms, call_label(args))
                sizes.append(len(r.content))
            res = data.get("result") if isinstance(data, dict) else None
            if not isinstance(res, dict) or res.get("isError") or "structuredContent" not in res:
                row.error(f"call {i}: HTTP {r.status_code}: {r.text[:200]}")

        await self._timed(row, call)
        row.note = f"response {sum(sizes) / max(1, len(sizes)) / 1024:.1f} KiB on average"
        return row

    async def healthz_phase(self, http: httpx2.AsyncClient) -> Row:
        """``GET /healthz`` (no auth, no MCP): the HTTP floor."""
        row = self.row("healthz", "HTTP floor: GET /healthz (httpx2)", "floor")

        async def call(i: int, timed: bool) -> None:
            t0 = time.perf_counter()
            r = await http.get(f"{self.base}/healthz")
            ms = (time.perf_counter() - t0) * 1000
            if timed:
                row.add(ms, "GET /healthz")
            if r.status_code != 200:
                row.error(f"call {i}: status {r.status_code}" + ("" if timed else " (warm-up)"))

        await self._timed(row, call)
        return row
