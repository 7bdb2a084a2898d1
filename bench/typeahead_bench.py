"""Typeahead latency in process on a vault: every prefix (1-6 letters) of 200 titles (``--titles``).

    python bench/typeahead_bench.py [--vault DIR] [--state DIR]

Opens (or builds) the vault's index, then times ``Hoard.searching.search(mode="typeahead")``
and, for the same texts, natural mode, in turns (one of each per text, so load shifts both alike).
Prints p50/p95 of each and writes ``bench/receipts/typeahead-<date>.json``. In process: the
JSON API adds its HTTP round trip on top.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from benchlib import evaldata_dir, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes")
    ap.add_argument("--state", type=Path, default=Path(".state/bench/typeahead"))
    ap.add_argument("--titles", type=int, default=200)
    args = ap.parse_args()
    with Hoard(args.vault, args.state) as h:
        titles = sorted(p.stem for p in args.vault.rglob("*.md"))
        random.Random(20261202).shuffle(titles)
        texts = [t[:n] for t in titles[: args.titles] for n in range(1, 7) if len(t) >= n]
        times: dict[str, list[float]] = {"typeahead": [], "natural": []}
        for text in texts:
            for mode in ("typeahead", "natural"):
                t0 = time.perf_counter()
                h.searching.search(text, mode=mode, caller=OWNER)
                times[mode].append((time.perf_counter() - t0) * 1000)
    rows = [
        [m, str(len(v)), f"{percentile(v, 50):.2f}", f"{percentile(v, 95):.2f}"]
        for m, v in times.items()
    ]
    print(render_table(["mode", "queries", "p50 ms", "p95 ms"], rows))
    write_receipt(
        "typeahead",
        {
            "when": now_iso(),
            "machine": machine_info(),
            "vault": str(args.vault),
            "modes": {
                m: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)}
                for m, v in times.items()
            },
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
