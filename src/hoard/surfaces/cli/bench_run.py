"""``hoard bench``: the command line of :mod:`hoard.benchmark` (every MCP tool through the
official client over loopback HTTP), loaded only when that command runs."""

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


def run(args: argparse.Namespace, argv: list[str]) -> int:
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
