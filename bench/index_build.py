"""Index size and build time of one folder under several checkouts of hoard, in turns.

    python bench/index_build.py --tree before=/work/wt/x-before --tree after=. \
        [--sets zk,zh,ja] [--rounds 3] [--name NAME]

Each ``--tree LABEL=PATH`` is a checkout whose ``src`` is put first on ``PYTHONPATH`` of a
fresh child process (the same venv, so the same SQLite and Python). A child imports hoard,
then times ``Hoard(folder, state)`` on an empty state directory (the first open builds the
whole index: wall time, and CPU time of the process and its rebuild workers, which a busy
machine disturbs less) and reports the size of ``index.db`` after ``close``. Per round, every set is
built once under every tree, the trees' order turning each round, so a before and an after
meet the same load on this shared machine; the table gives the median of the rounds and the
ratio of each tree to the first one (medians of the per-round ratios: each round's builds
ran side by side).

Sets: ``zk`` is a copy of ``$HOARD_EVALDATA/zk-digitalyoshixi/notes`` (English) made once in a
temporary folder; ``zh``, ``ja`` (any tldr language) are the tldr ``pages.<lang>`` folders,
extracted once as bench/quality_tldr.py does. Writes
``bench/receipts/<name>-<date>.json`` (default name ``index-build``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlib import evaldata_dir, machine_info, now_iso, render_table, write_receipt
from quality_tldr import extracted, folder_of

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
folder, state = Path(sys.argv[1]), Path(sys.argv[2])
import hoard
from hoard.app.hoard import Hoard
def cpu():
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime
t0, c0 = time.perf_counter(), cpu()
h = Hoard(folder, state)
build_s = time.perf_counter() - t0
h.close()
import sqlite3
with sqlite3.connect(state / "index.db") as c:
    n = c.execute("SELECT count(*) FROM notes").fetchone()[0]
cpu_s = cpu() - c0
size = sum(p.stat().st_size for p in state.glob("index.db*"))
out = {"build_s": build_s, "cpu_s": cpu_s, "db_bytes": size, "notes": n}
print(json.dumps({**out, "hoard": hoard.__file__}))
"""


def folders(sets: Sequence[str], tmp: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for name in sets:
        if name == "zk":
            dst = tmp / "zk"
            shutil.copytree(evaldata_dir() / "zk-digitalyoshixi" / "notes", dst)
            out[name] = dst
        else:
            out[name] = extracted() / folder_of(name)
    return out


def build_once(tree: Path, folder: Path, tmp: Path) -> dict[str, Any]:
    state = Path(tempfile.mkdtemp(prefix="state-", dir=tmp))
    env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(folder), str(state)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        shutil.rmtree(state, ignore_errors=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summarise(mine: list[dict[str, Any]], base: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the rounds, and the medians of the per-round ratios to the base tree."""

    def med(key: str) -> float:
        return float(statistics.median(r[key] for r in mine))

    def ratio(key: str) -> float:
        return float(statistics.median(a[key] / b[key] for a, b in zip(mine, base, strict=True)))

    return {
        "notes": mine[0]["notes"],
        "db_bytes": med("db_bytes"),
        "build_s": med("build_s"),
        "cpu_s": med("cpu_s"),
        "size_ratio": ratio("db_bytes"),
        "build_ratio": ratio("build_s"),
        "cpu_ratio": ratio("cpu_s"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tree", action="append", required=True, help="LABEL=PATH (first = base)")
    ap.add_argument("--sets", default="zk,zh,ja")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--name", default="index-build", help="receipt name (before the date)")
    args = ap.parse_args(argv)
    trees = [(t.split("=", 1)[0], Path(t.split("=", 1)[1])) for t in args.tree]
    sets = args.sets.split(",")
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        s: {lab: [] for lab, _ in trees} for s in sets
    }
    with tempfile.TemporaryDirectory(prefix="hoard-index-build-") as tmp_name:
        tmp = Path(tmp_name)
        where = folders(sets, tmp)
        for rnd in range(args.rounds):
            order = trees[rnd % len(trees) :] + trees[: rnd % len(trees)]
            for s in sets:
                for lab, tree in order:
                    r = build_once(tree, where[s], tmp)
                    runs[s][lab].append(r)
                    print(
                        f"round {rnd} {s} {lab}: {r['build_s']:.2f} s, "
                        f"{r['db_bytes'] / 1e6:.2f} MB",
                        file=sys.stderr,
                        flush=True,
                    )
    rows: list[list[str]] = []
    summary: dict[str, Any] = {}
    base = trees[0][0]
    for s in sets:
        summary[s] = {lab: summarise(runs[s][lab], runs[s][base]) for lab, _ in trees}
        for lab, _ in trees:
            m = summary[s][lab]
            rows.append(
                [
                    s,
                    lab,
                    str(m["notes"]),
                    f"{m['db_bytes'] / 1e6:.2f}",
                    f"{m['size_ratio']:.2f}x",
                    f"{m['build_s']:.2f}",
                    f"{m['build_ratio']:.2f}x",
                    f"{m['cpu_s']:.2f}",
                    f"{m['cpu_ratio']:.2f}x",
                ]
            )
    head = ["set", "tree", "notes", "index MB", "vs base", "build s", "vs base", "CPU s", "vs base"]
    print(render_table(head, rows))
    write_receipt(
        args.name,
        {
            "when": now_iso(),
            "machine": machine_info(),
            "trees": {lab: str(p) for lab, p in trees},
            "rounds": args.rounds,
            "median": summary,
            "runs": runs,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
