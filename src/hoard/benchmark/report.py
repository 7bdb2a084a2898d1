"""Receipts and tables: machine facts and versions, the one table ``hoard bench`` prints,
and the ratios against an earlier receipt (``--compare``)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import os
import platform
import sqlite3
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import hoard

GROUPS = {
    "http": "MCP/HTTP",
    "api": "API/HTTP",
    "floor": "floor",
    "in-process": "in-process",
    "baseline": "baseline",
}
SIDE_BY_SIDE = (("api_read_small", "read_small"), ("api_search", "search"))
"""JSON API rows and the MCP rows of the same calls, compared in the facts under the table."""
DISTRIBUTIONS = (
    "hoard",
    "mcp",
    "mcp-types",
    "httpx2",
    "uvicorn",
    "starlette",
    "pydantic",
    "quickjs-ng",
    "rapidfuzz",
    "watchfiles",
)


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _first_line(path: str, prefix: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def machine_info() -> dict[str, Any]:
    mem = _first_line("/proc/meminfo", "MemTotal:")
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _first_line("/proc/cpuinfo", "model name") or platform.processor() or "?",
        "cpu_count": os.cpu_count(),
        "mem_total_mb": int(mem.split()[0]) // 1024 if mem else None,
        "python": sys.version.split()[0],
        "python_impl": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        # Other work on the machine skews timings: keep the load beside them.
        "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def source_fingerprint() -> dict[str, Any]:
    """Which hoard code ran: a hash of every Python file of the package, and the newest
    file's modification time."""
    src = Path(hoard.__file__).resolve().parent
    digest = hashlib.sha256()
    newest = 0.0
    for f in sorted(src.rglob("*.py")):
        digest.update(str(f.relative_to(src)).encode() + b"\0" + f.read_bytes() + b"\0")
        newest = max(newest, f.stat().st_mtime)
    return {
        "src_sha256": digest.hexdigest()[:16],
        "src_newest_mtime": datetime.fromtimestamp(newest, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def versions() -> dict[str, str]:
    out: dict[str, str] = {}
    for dist in DISTRIBUTIONS:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "?"
    out["hoard_package"] = hoard.__version__
    out.update(source_fingerprint())
    return out


def write_receipt(receipt: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(receipt, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# -- the table ------------------------------------------------------------------------------


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown-compatible table with padded columns (numbers right-aligned)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def numeric(cell: str) -> bool:
        return cell.rstrip("x").replace(".", "", 1).replace("-", "", 1).isdigit()

    def fmt(row: Sequence[str]) -> str:
        cells = [
            c.rjust(widths[i]) if numeric(c) else c.ljust(widths[i]) for i, c in enumerate(row)
        ]
        return "| " + " | ".join(cells) + " |"

    lines = [fmt(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines.extend(fmt(r) for r in rows)
    return "\n".join(lines)


def fmt_ms(x: Any) -> str:
    if not isinstance(x, int | float) or math.isnan(x):
        return "-"
    if x >= 1000:
        return f"{x:.0f}"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.1f}"


def result_cell(f: dict[str, Any]) -> str:
    if f.get("skipped"):
        return str(f["skipped"])
    if f.get("errors"):
        return "ERRORS"
    return {True: "pass", False: "miss", None: ""}[f.get("pass")]


def ratio(new: Any, old: Any) -> str:
    ok = isinstance(new, int | float) and isinstance(old, int | float)
    return f"{new / old:.2f}x" if ok and old and not math.isnan(new) else "—"


def load_line(machine: dict[str, Any]) -> list[str]:
    """The machine's 1/5/15-minute load at the start and the end (timings move with it)."""
    start, end = machine.get("loadavg_start"), machine.get("loadavg")
    if not start and not end:
        return []

    def show(v: Any) -> str:
        return " / ".join(f"{x:.2f}" for x in v) if v else "?"

    return [f"load average (1/5/15 min): {show(start)} at the start, {show(end)} at the end"]


def render(receipt: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    """The table of every figure, then the facts (index size, server RSS, ...)."""
    corpus = receipt["corpus"]
    what = f"copy of {corpus['source']}" if corpus.get("source") else "generated vault"
    lines = [
        f"hoard bench {receipt['versions'].get('hoard', '?')}: {corpus['notes']:,} notes, "
        f"{corpus['mb']} MB ({what}); n = {receipt['settings']['n']}, "
        f"warm-up {receipt['settings']['warmup']}",
        *load_line(receipt.get("machine") or {}),
        "",
    ]
    head = ["via", "name", "n", "errors", "p50 ms", "p95 ms", "max ms", "target", "result"]
    old_figures = (baseline or {}).get("figures")
    if not isinstance(old_figures, dict):
        old_figures = {}
    if baseline is not None:
        head.append("p50 vs base")
    body: list[list[str]] = []
    for key, f in receipt["figures"].items():
        cells = [
            GROUPS.get(f.get("group", ""), f.get("group", "")),
            f["name"],
            str(f["n"]),
            str(f.get("errors", 0)),
            fmt_ms(f.get("p50_ms")),
            fmt_ms(f.get("p95_ms")),
            fmt_ms(f.get("max_ms")),
            f.get("target") or "",
            result_cell(f),
        ]
        if baseline is not None:
            old = old_figures.get(key)
            cells.append(
                ratio(f.get("p50_ms"), old.get("p50_ms")) if isinstance(old, dict) else "—"
            )
        body.append(cells)
    lines.append(render_table(head, body))
    lines.append("")
    lines.extend(facts_lines(receipt, baseline))
    return "\n".join(lines)


def facts_lines(receipt: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    corpus, figures = receipt["corpus"], receipt["figures"]
    out = [f"- index on disk: {corpus['index_mb']} MB"]
    if baseline is not None:
        old_corpus = baseline.get("corpus")
        old_mb = old_corpus.get("index_mb") if isinstance(old_corpus, dict) else None
        out[-1] += f" ({ratio(corpus['index_mb'], old_mb)})"
    rss = receipt.get("rss")
    if rss:
        verdict = {True: "pass", False: "miss", None: "not measured"}[rss.get("pass")]
        out.append(
            f"- server RSS: {rss.get('VmRSS_mb', '?')} MB at the end, peak "
            f"{rss.get('VmHWM_mb', '?')} MB (target {rss['target']}: {verdict})"
        )
        old = (baseline or {}).get("rss")
        if baseline is not None:
            old_peak = old.get("VmHWM_mb") if isinstance(old, dict) else None
            out[-1] += f" ({ratio(rss.get('VmHWM_mb'), old_peak)} peak)"
    search = figures.get("search") or figures.get("raw_fts")
    for key in ("naive_substring", "naive_any_word", "grep"):
        f = figures.get(key)
        if search and f and f.get("n") and search.get("p50_ms"):
            out.append(
                f"- {f['name']}: p50 {ratio(f['p50_ms'], search['p50_ms'])} that of "
                f"{search['name']} ({GROUPS.get(search.get('group', ''), '')})"
            )
    out.extend(side_by_side(figures))
    untouched = receipt.get("source_vault_untouched")
    if untouched is not None:
        out.append(f"- source vault untouched: {untouched}")
    for f in figures.values():
        if f.get("note"):
            out.append(f"- {f['name']}: {f['note']}")
        for e in f.get("error_examples") or []:
            out.append(f"  ! {f['name']}: {e}")
    return out


def side_by_side(figures: dict[str, Any]) -> list[str]:
    """``- JSON API: GET note ... p50 7.4 ms vs vault_read ... (MCP/HTTP) 11.4 ms: 0.65x``."""
    out = []
    for api_key, mcp_key in SIDE_BY_SIDE:
        api, mcp = figures.get(api_key), figures.get(mcp_key)
        if not api or not mcp or not api.get("p50_ms") or not mcp.get("p50_ms"):
            continue
        out.append(
            f"- {api['name']}: p50 {fmt_ms(api['p50_ms'])} ms vs {mcp['name']} (MCP/HTTP) "
            f"{fmt_ms(mcp['p50_ms'])} ms: {ratio(api['p50_ms'], mcp['p50_ms'])}"
        )
    return out
