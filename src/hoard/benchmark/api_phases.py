"""The JSON API beside MCP in ``hoard bench``: the same small-note read and the same searches
as the MCP rows, as plain ``GET /api/v1/...`` requests with httpx2 (one keep-alive
connection, a bearer token, the body parsed with ``json.loads``), so the report shows both
ways in for one call side by side."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx2

from hoard.benchmark.mcp_runner import Runner

UrlFor = Callable[[int], tuple[str, dict[str, Any]]]
CheckFn = Callable[[int, dict[str, Any]], str | None]


async def api_phase(
    r: Runner, http: httpx2.AsyncClient, key: str, name: str, url_for: UrlFor, check: CheckFn
) -> None:
    row = r.row(key, name, "api")
    headers = {"Authorization": f"Bearer {r.token}"}

    async def call(i: int, timed: bool) -> None:
        path, params = url_for(i)
        t0 = time.perf_counter()
        resp = await http.get(f"{r.base}/api/v1{path}", params=params, headers=headers)
        data = json.loads(resp.content) if resp.status_code == 200 else None
        ms = (time.perf_counter() - t0) * 1000
        if timed:
            row.add(ms, f"GET {path}")
        problem = f"HTTP {resp.status_code}" if not isinstance(data, dict) else check(i, data)
        if problem:
            row.error(f"call {i}: {problem}" + ("" if timed else " (warm-up)"))

    await r._timed(row, call)


async def api_phases(
    r: Runner,
    http: httpx2.AsyncClient,
    small: tuple[str, int],
    query: Callable[[int], str],
) -> None:
    """``GET /api/v1/notes/{small}`` and ``GET /api/v1/search?q=`` (rows ``api_read_small``
    and ``api_search``), to read beside ``read_small`` and ``search``."""
    path, size = small

    def read_check(i: int, d: dict[str, Any]) -> str | None:
        return None if d.get("size") == size and d.get("path") == path else f"read {d!r:.200}"

    def search_check(i: int, d: dict[str, Any]) -> str | None:
        return None if d.get("engine") == "fts5" else f"engine {d.get('engine')!r}"

    await api_phase(
        r,
        http,
        "api_read_small",
        f"JSON API: GET note, small ({size / 1024:.1f} KiB)",
        lambda i: (f"/notes/{path}", {}),
        read_check,
    )
    await api_phase(
        r,
        http,
        "api_search",
        "JSON API: GET search",
        lambda i: ("/search", {"q": query(i)}),
        search_check,
    )
