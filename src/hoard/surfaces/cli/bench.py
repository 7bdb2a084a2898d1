"""``hoard bench``: the command line of :mod:`hoard.benchmark`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hoard.benchmark.report import render, write_receipt
from hoard.benchmark.run import Options, failures, run_bench
from hoard.core.errors import InvalidArgument
from hoard.surfaces.cli.common import Progress

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ERROR = 2


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


def _load_baseline(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidArgument(f"--compare {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidArgument(f"--compare {path}: not a receipt")
    return data


def bench_command(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    baseline = _load_baseline(args.compare)
    opts = Options(
        vault=args.vault,
        notes=args.notes,
        seed=args.seed,
        n=args.n,
        warmup=args.warmup,
        http=not args.no_http,
        queries=args.queries,
    )

    def say(msg: str) -> None:
        print(f"hoard bench: {msg}", file=sys.stderr, flush=True)

    try:
        receipt = run_bench(opts, say, Progress, argv)
    except RuntimeError as exc:
        print(f"hoard bench: {exc}", file=sys.stderr)
        return EXIT_ERROR
    out = args.receipt or Path(f"hoard-bench-{time.strftime('%Y%m%d-%H%M%S')}.json")
    write_receipt(receipt, out)
    if args.json:
        print(json.dumps(receipt, ensure_ascii=False))
    else:
        print(render(receipt, baseline))
    print(f"hoard bench: receipt {out}", file=sys.stderr)
    problems = failures(receipt)
    for problem in problems:
        print(f"hoard bench: {problem}", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK
