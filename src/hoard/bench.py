"""``hoard bench``: how fast hoard is on *your* vault, in process, beside naive baselines.

It works on a copy of the vault (writes touch only scratch notes in the copy), prints one
table (n, p50, p95, max per operation) and writes a JSON receipt that a later run can be
compared against (``--compare receipt.json`` prints the ratios). The MCP-over-HTTP figures
and the judged quality sets live in the repository's ``bench/`` scripts; this command is the
part every installation has. Nothing here is a test, and nothing asserts a time.
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hoard import __version__
from hoard.service import Hoard

SCRATCH = "hoard-bench-scratch"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def _time(fn: Callable[[int], object], n: int, warmup: int = 3) -> list[float]:
    for i in range(min(warmup, n)):
        fn(i)
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _note(i: int) -> str:
    body = f"Scratch note {i} written by hoard bench. " * 8
    return (
        f"---\ntitle: Bench scratch {i}\ntype: scratch\nstatus: draft\n"
        f"tags: [bench, scratch]\nupdated: 2026-01-01\n---\n{body.strip()}\n"
    )


def run_bench(
    vault: Path, n: int = 100, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Measure on a temporary copy of ``vault``; returns the receipt."""
    say = progress or (lambda _msg: None)
    tmp = Path(tempfile.mkdtemp(prefix="hoard-bench-"))
    try:
        copy = tmp / "vault"
        shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".git", ".obsidian"))
        rows: dict[str, list[float]] = {}
        say("rebuilding the index")
        t0 = time.perf_counter()
        # With the watcher, as a server runs: reads do not wait for stat walks.
        hoard = Hoard(copy, tmp / "state", watch=True)
        rows["full rebuild (first open)"] = [(time.perf_counter() - t0) * 1000]
        try:
            notes = sorted(hoard.vault.scan())
            rng = random.Random(7)
            sample = rng.sample(notes, min(len(notes), 50)) or notes
            titles = [hoard.read(p).path.rsplit("/", 1)[-1][:-3].replace("-", " ") for p in sample]
            say(f"measuring on {len(notes)} notes")
            rows["no-change sync (stat walk)"] = _time(lambda i: hoard.index.sync(), n)
            rows["search"] = _time(lambda i: hoard.search(titles[i % len(titles)]), n)
            rows["read"] = _time(lambda i: hoard.read(sample[i % len(sample)]), n)
            rows["links"] = _time(lambda i: hoard.links(sample[i % len(sample)]), n)
            rows["list (root)"] = _time(lambda i: hoard.list(""), n)
            conn = sqlite3.connect(hoard.index.path)
            rows["raw FTS5 query"] = _time(
                lambda i: conn.execute(
                    "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank LIMIT 10",
                    (" OR ".join(f'"{w}"' for w in titles[i % len(titles)].split() if w) or '""',),
                ).fetchall(),
                n,
            )
            conn.close()
            rows["write dry run"] = _time(
                lambda i: hoard.writes.write(f"{SCRATCH}/d{i}.md", _note(i), dry_run=True), n
            )
            revisions: list[str] = []

            def write(i: int) -> None:
                revisions.append(hoard.writes.write(f"{SCRATCH}/w{i}.md", _note(i)).revision or "")

            rows["write (create, 500 B)"] = _time(write, n, warmup=0)
            rows["archive"] = _time(
                lambda i: hoard.writes.archive(f"{SCRATCH}/w{i}.md", "archived", revisions[i]),
                n,
                warmup=0,
            )
            scan_n = max(3, n // 20)

            def naive(i: int) -> int:
                needle = titles[i % len(titles)].lower()
                hits = 0
                for rel in notes:
                    try:
                        text = (copy / rel).read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        continue
                    hits += needle in text.lower()
                return hits

            rows["naive substring scan (every file)"] = _time(naive, scan_n, warmup=0)
            index_mb = hoard.index.path.stat().st_size / 2**20
        finally:
            hoard.close()
        return {
            "hoard": __version__,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {
                "platform": platform.platform(),
                "python": platform.python_version(),
                "sqlite": sqlite3.sqlite_version,
                "cpus": os.cpu_count(),
            },
            "vault": str(vault),
            "notes": len(notes),
            "index_mb": round(index_mb, 1),
            "figures": {
                name: {
                    "n": len(v),
                    "p50_ms": round(_pct(v, 50), 3),
                    "p95_ms": round(_pct(v, 95), 3),
                    "max_ms": round(max(v), 3),
                }
                for name, v in rows.items()
            },
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def render(receipt: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    head = ["name", "n", "p50 ms", "p95 ms", "max ms"] + (["p50 vs base"] if baseline else [])
    lines = [
        f"hoard {receipt['hoard']} on {receipt['notes']} notes (index {receipt['index_mb']} MB)",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for name, f in receipt["figures"].items():
        cells = [
            name,
            str(f["n"]),
            f"{f['p50_ms']:.3f}",
            f"{f['p95_ms']:.3f}",
            f"{f['max_ms']:.3f}",
        ]
        if baseline:
            base = baseline.get("figures", {}).get(name)
            cells.append(f"{f['p50_ms'] / base['p50_ms']:.2f}x" if base and base["p50_ms"] else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bench_and_save(
    vault: Path, n: int, receipt_path: Path | None, progress: Callable[[str], None] | None = None
) -> tuple[dict[str, Any], Path]:
    """Run the bench and write its receipt (default: ``hoard-bench-<time>.json`` here)."""
    receipt = run_bench(vault, n, progress)
    out = receipt_path or Path(f"hoard-bench-{time.strftime('%Y%m%d-%H%M%S')}.json")
    out.write_text(json.dumps(receipt, indent=2) + "\n", encoding="utf-8")
    return receipt, out
