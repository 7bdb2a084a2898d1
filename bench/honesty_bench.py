"""Claims and synthesis speed, in process, on a copy of the zk vault (or --vault).

    python bench/honesty_bench.py [--vault PATH] [--n 300]

Measures claim_get (a claim bound to one source), synthesis_status of a summary with 32
sources (warm hash cache), and search with synthesis warnings attached against the same
searches on a vault with no registered summaries (10 registered summaries among the hits).
Prints a table and writes bench/receipts/honesty-<date>.json. Not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (
    evaldata_dir,
    machine_info,
    percentile,
    render_table,
    write_receipt,
)
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER

TARGETS = {
    "claim_get": 2.0,
    "synthesis_status (32 sources, warm)": 10.0,
}


def timed(fn: Callable[[], object], n: int) -> list[float]:
    for _ in range(min(20, n)):
        fn()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--receipt", type=Path, default=None)
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="hoard-honesty-bench-"))
    try:
        vault = tmp / "vault"
        shutil.copytree(args.vault, vault)
        hoard = Hoard(vault, tmp / "state")
        owner = hoard.owner
        notes = sorted(p for p in hoard.vault.scan() if "/" in p)
        rng = random.Random(7)
        sources = rng.sample(notes, 32 * 11)

        hoard.honesty.claims.record("bench", "fact", "42", sources[0], caller=owner)
        claim = timed(lambda: hoard.honesty.claims.get("bench", "fact", caller=owner), args.n)

        summary = "bench-summaries/summary-0.md"
        (vault / "bench-summaries").mkdir()
        for i in range(11):
            (vault / f"bench-summaries/summary-{i}.md").write_text(
                "---\ntitle: Bench summary\ntype: summary\nstatus: draft\ntags: [bench, summary]"
                f"\nupdated: 2026-11-30\n---\nbench summary {i} of pangolin sources\n",
                encoding="utf-8",
            )
        hoard.maintenance.reindex()
        for i in range(11):
            hoard.honesty.syntheses.register(
                f"bench-summaries/summary-{i}.md", sources[i * 32 : (i + 1) * 32], caller=owner
            )
        status = timed(lambda: hoard.honesty.syntheses.status(summary, caller=owner), args.n)

        query = "bench summary pangolin"
        known = evaldata_dir() / "zk-digitalyoshixi" / "queries-known-item.jsonl"
        mixed = [json.loads(line)["query"] for line in known.read_text().splitlines()[:200]]
        cycle = iter(range(10**9))

        def mixed_search() -> object:
            return hoard.searching.search(mixed[next(cycle) % len(mixed)], limit=10, caller=OWNER)

        with_warnings = timed(lambda: hoard.searching.search(query, limit=10, caller=OWNER), args.n)
        mixed_with = timed(mixed_search, args.n)
        real = hoard.honesty.warnings_for
        hoard.honesty.warnings_for = lambda paths, budget, *, caller: {}  # type: ignore[method-assign]
        without = timed(lambda: hoard.searching.search(query, limit=10, caller=OWNER), args.n)
        mixed_without = timed(mixed_search, args.n)
        hoard.honesty.warnings_for = real  # type: ignore[method-assign]
        hoard.close()

        rows = []
        figures: dict[str, object] = {}
        for name, values in [
            ("claim_get", claim),
            ("synthesis_status (32 sources, warm)", status),
            ("search, 10 summaries with warnings", with_warnings),
            ("search, same, warnings off", without),
            ("search, zk known-item queries, warnings", mixed_with),
            ("search, same, warnings off ", mixed_without),
        ]:
            p50, p95 = percentile(values, 50), percentile(values, 95)
            figures[name] = {"n": len(values), "p50_ms": p50, "p95_ms": p95, "max_ms": max(values)}
            target = TARGETS.get(name)
            verdict = "" if target is None else ("pass" if p50 < target else "FAIL")
            rows.append(
                [
                    name,
                    str(len(values)),
                    f"{p50:.3f}",
                    f"{p95:.3f}",
                    f"{max(values):.3f}",
                    f"p50 < {target} ms" if target else "",
                    verdict,
                ]
            )
        ratio = percentile(mixed_with, 50) / max(percentile(mixed_without, 50), 1e-9)
        worst = percentile(with_warnings, 50) / max(percentile(without, 50), 1e-9)
        verdict = "pass" if ratio < 1.2 else "FAIL"
        rows.append(
            [
                "mixed search, with / without warnings (p50)",
                "",
                f"{ratio:.2f}x",
                "",
                "",
                "< 1.20x",
                verdict,
            ]
        )
        rows.append(
            ["all 10 hits are summaries, with / without", "", f"{worst:.2f}x", "", "", "", ""]
        )
        figures["warnings_ratio_p50"] = ratio
        figures["warnings_ratio_p50_all_hits_summaries"] = worst
        print(render_table(["name", "n", "p50 ms", "p95 ms", "max ms", "target", "result"], rows))
        receipt = write_receipt(
            "honesty",
            {
                "machine": machine_info(),
                "vault": str(args.vault),
                "notes": len(notes) + 0,
                "figures": figures,
            },
            args.receipt,
        )
        print(f"receipt: {receipt}")
        failed = any(r[-1] == "FAIL" for r in rows)
        print(json.dumps({"failed": failed}))
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
