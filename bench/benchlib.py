"""Shared helpers for the bench scripts: where the evaluation data lives, machine facts for
receipts, percentiles and plain-text tables. Benchmarks are not tests (see DESIGN.md §5)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sqlite3
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import hoard

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RECEIPTS_DIR = BENCH_DIR / "receipts"


def evaldata_dir() -> Path:
    """``$HOARD_EVALDATA``, else ``../shared/evaldata`` beside the repository. Used by path:
    the data is never copied into the project."""
    env = os.environ.get("HOARD_EVALDATA")
    return Path(env).expanduser().resolve() if env else (REPO_ROOT.parent / "shared" / "evaldata")


def _mem_total_mb() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def source_fingerprint() -> dict[str, Any]:
    """Which hoard code was measured (no git here): a hash of every ``src/hoard`` Python
    file, and the newest file's modification time."""
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


def machine_info() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "mem_total_mb": _mem_total_mb(),
        "python": sys.version.split()[0],
        "python_impl": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        "hoard": hoard.__version__,
        **source_fingerprint(),
        # Other work on the machine skews timings: keep the load beside them.
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def write_receipt(name: str, payload: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``bench/receipts/<name>-<date>.json`` (or ``path``) and return where."""
    out = path if path is not None else RECEIPTS_DIR / f"{name}-{today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]; NaN for no values."""
    if not values:
        return float("nan")
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown-compatible table with padded columns (numbers right-aligned)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def numeric(cell: str) -> bool:
        return cell.replace(".", "", 1).replace("-", "", 1).isdigit()

    def fmt(row: Sequence[str]) -> str:
        cells = [
            c.rjust(widths[i]) if numeric(c) else c.ljust(widths[i]) for i, c in enumerate(row)
        ]
        return "| " + " | ".join(cells) + " |"

    lines = [fmt(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines.extend(fmt(r) for r in rows)
    return "\n".join(lines)


# -- added for bench/http_bench.py ----------------------------------------------------------


def git_head() -> str | None:
    """The repository's ``HEAD`` commit (read-only ``git rev-parse``), or ``None``."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    head = proc.stdout.strip()
    return head if proc.returncode == 0 and head else None


def wait_for_load(
    max_load: float = 1.5, timeout_s: float = 180.0, poll_s: float = 5.0
) -> dict[str, Any]:
    """Poll the 1-minute load average until it is at most ``max_load`` or ``timeout_s``
    passed. Returns what was seen: ``{"before", "after", "waited_s", "settled"}``."""
    import time

    before = os.getloadavg()[0]
    t0 = time.monotonic()
    load = before
    while load > max_load and time.monotonic() - t0 < timeout_s:
        time.sleep(poll_s)
        load = os.getloadavg()[0]
    return {
        "before": round(before, 2),
        "after": round(load, 2),
        "waited_s": round(time.monotonic() - t0, 1),
        "settled": load <= max_load,
        "max_load": max_load,
    }


def proc_status_mb(pid: int) -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` (peak RSS) of a live process from ``/proc/<pid>/status``, in MB
    (MiB); empty when unreadable."""
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = round(int(value.split()[0]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        return {}
    return out


def proc_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process (all its threads), in seconds."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        fields = raw[raw.rindex(")") + 2 :].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    except (OSError, ValueError, IndexError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


class SampleStats:
    """p50 / p95 / max over ``samples_ms``, for the benches' row classes."""

    samples_ms: list[float]

    @property
    def p50(self) -> float:
        return percentile(self.samples_ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples_ms, 95)

    @property
    def max(self) -> float:
        return max(self.samples_ms) if self.samples_ms else float("nan")
