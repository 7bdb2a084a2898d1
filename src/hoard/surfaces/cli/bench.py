"""``hoard bench``'s arguments; it runs from :mod:`.bench_run`, which loads the benchmark
and the MCP client only for this command."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def add_bench_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="measure hoard through the MCP client over loopback HTTP (on a copy of a vault)",
        description="Measure hoard on a copy of --vault (never written), or on a generated "
        "vault: every MCP tool through the official client over loopback HTTP against a "
        "real `hoard serve --http`, in-process rows and naive baselines. Prints one table "
        "and writes a JSON receipt. Exit status 1 when a phase had errors or the source "
        "vault changed (a missed target is reported, not an error).",
    )
    p.add_argument(
        "--vault",
        type=Path,
        default=None,
        help="the vault to measure a copy of (default: a generated vault)",
    )
    p.add_argument("--notes", type=int, default=2500, help="generated vault size (default 2500)")
    p.add_argument("--seed", type=int, default=20261130, help="generator and sampling seed")
    p.add_argument("--n", type=int, default=100, help="timed calls per phase (default 100)")
    p.add_argument(
        "--warmup", type=int, default=None, help="warm-up calls per phase (default n/5, 1-20)"
    )
    p.add_argument(
        "--queries",
        type=Path,
        default=None,
        help="judged queries (JSON lines: query, relevant); default: a queries*.jsonl beside "
        "the vault, else titles sampled from the vault",
    )
    p.add_argument(
        "--receipt",
        type=Path,
        default=None,
        help="where to write the JSON receipt (default: hoard-bench-<time>.json here)",
    )
    p.add_argument("--compare", type=Path, default=None, help="an earlier receipt: print ratios")
    p.add_argument(
        "--no-http", action="store_true", help="in-process rows and baselines only (fast)"
    )
    p.add_argument("--json", action="store_true", help="print the receipt instead of the table")
