"""In-process search p50 of two checkouts on one built index, query by query in turns.

    python bench/search_inturns.py --vault DIR --state DIR [--baseline CHECKOUT] \
        [--base-state DIR] [--n 100] [--warmup 20] [--passes 3] [--seed 20261130] \
        [--queries FILE] [--name search-inturns]

The queries are the ones ``hoard bench`` times on the same vault with the same seed (the
scale bench's: judged queries beside the vault, else titles sampled from the index: known
items, the same with a typo, three-word mixes). Each checkout runs in a child process (its
``src`` first on ``PYTHONPATH``, the same venv) holding one ``Hoard`` open on its own state
folder (``--state`` for this checkout, ``--base-state`` for ``--baseline``: two processes
never share one index file); the parent sends each query to every child in turn (the order
turning each query) and records the child's own timing of ``Hoard.searching.search``
(natural mode, limit 10) and its top 10. The children make no stat walk before a search (a
server's file watcher keeps its index fresh; at 250k notes a walk takes over a second).
``--passes`` repeats the timed queries. Prints p50/p95/mean per checkout, the per-query
ratio's median, how many top-10 lists differ, and the slowest queries; writes
``bench/receipts/<name>-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchlib import REPO_ROOT, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.adapters.fs.config_file import load_config
from hoard.benchmark import queries as query_set
from hoard.benchmark.corpus import visible_to_callers

CHILD = r"""
import json, sys, time
from pathlib import Path
import hoard.app.freshness
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
hoard.app.freshness.STAT_WALK_INTERVAL_S = float("inf")  # a server's watcher: no stat walks
h = Hoard(Path(sys.argv[1]), Path(sys.argv[2]))
titles = [list(r) for r in h.index.reader().execute("SELECT path, title FROM notes")]
print(json.dumps({"titles": titles}), flush=True)
for line in sys.stdin:
    q = json.loads(line)["q"]
    t0 = time.perf_counter()
    res = h.searching.search(q, limit=10, caller=OWNER)
    ms = (time.perf_counter() - t0) * 1000
    print(json.dumps({"ms": ms, "top": [x.path for x in res.results]}), flush=True)
h.close()
"""


class Child:
    def __init__(self, tree: Path, vault: Path, state: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(vault), str(state)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.titles: list[tuple[str, str]] = [tuple(t) for t in self._read()["titles"]]

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("a search child ended early")
        data: dict[str, Any] = json.loads(line)
        return data

    def ask(self, query: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"q": query}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def choose_queries(
    vault: Path, titles: list[tuple[str, str]], args: argparse.Namespace
) -> list[str]:
    """The queries ``hoard bench --seed`` picks on this vault (titles as the index holds them)."""
    config = load_config(vault)
    usable = [(p, t) for p, t in titles if visible_to_callers(p, config)]
    rng = random.Random(args.seed)
    qs, _ = query_set.build(vault, usable, args.n + args.warmup, rng, args.queries)
    return [q.text for q in qs]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--state", type=Path, required=True)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--base-state", type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--queries", type=Path)
    ap.add_argument("--name", default="search-inturns")
    args = ap.parse_args()
    children = {"this": Child(REPO_ROOT, args.vault, args.state)}
    if args.baseline is not None:
        children["baseline"] = Child(args.baseline, args.vault, args.base_state or args.state)
    queries = choose_queries(args.vault, children["this"].titles, args)
    names = list(children)
    times: dict[str, list[float]] = {n: [] for n in names}
    per_query: list[dict[str, Any]] = []
    differ = 0
    for p in range(args.passes):
        for i, q in enumerate(queries):
            k = (i + p) % len(names)
            got = {n: children[n].ask(q) for n in names[k:] + names[:k]}
            if i < args.warmup:
                continue
            for n in names:
                times[n].append(got[n]["ms"])
            if p == 0 and len(names) > 1 and got["this"]["top"] != got["baseline"]["top"]:
                differ += 1
            per_query.append({"q": q, **{n: got[n]["ms"] for n in names}})
    for c in children.values():
        c.close()
    rows = []
    out: dict[str, Any] = {}
    for n in names:
        v = times[n]
        out[n] = {
            "n": len(v),
            "p50_ms": percentile(v, 50),
            "p95_ms": percentile(v, 95),
            "mean_ms": statistics.fmean(v),
        }
        rows.append(
            [
                n,
                str(len(v)),
                f"{out[n]['p50_ms']:.2f}",
                f"{out[n]['p95_ms']:.2f}",
                f"{out[n]['mean_ms']:.2f}",
            ]
        )
    print(render_table(["code", "n", "p50 ms", "p95 ms", "mean ms"], rows))
    if len(names) > 1:
        ratio = statistics.median(r["this"] / r["baseline"] for r in per_query)
        out["median_ratio_this_to_baseline"] = ratio
        out["top10_differ"] = differ
        print(
            f"median per-query ratio this/baseline: {ratio:.3f}; top 10 differs on {differ} "
            f"of {len(queries) - args.warmup} queries"
        )
    slow = sorted(per_query, key=lambda r: -r["this"])[:15]
    for r in slow:
        print(f"  {r['this']:8.2f} ms  {r['q']!r}", file=sys.stderr)
    write_receipt(
        args.name,
        {
            "when": now_iso(),
            "machine": machine_info(),
            "vault": str(args.vault),
            "baseline": str(args.baseline) if args.baseline else None,
            "seed": args.seed,
            "passes": args.passes,
            "series": out,
            "slowest": slow,
            "per_query": per_query,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
