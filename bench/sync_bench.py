"""Git sync: how long a note written on hoard A takes to be searchable on hoard B through a
local bare remote, and what sync adds to a write.

Two clones of one bare remote (in a temporary folder), each opened by an in-process hoard:

1. **A → B on demand**: ``--n`` times, write a note with a fresh word on A, run A's sync
   (push), run B's sync (pull), then search B for the word. The time from the write's start
   to the hit is taken: the mechanism's own latency.
2. **A → B by the timers**: both hoards run as a server runs them (the sync thread on, B
   pulling every ``--pull-every`` seconds); after each write on A, B is searched every 20 ms
   until the word is found. This figure is bounded below by B's pull interval.
3. **The cost of sync on the write path**: ``vault_write`` p50 with sync off and on, in
   one run. The fair "off" is the same vault with ``[git] commit = true`` and no remote
   (every write is committed either way: the commit is ``[git] commit``'s cost, not
   sync's). "On" is the same vault with a remote and ``push`` on, its sync thread running
   as a server runs it: what sync adds is the ``synced`` mark and the push scheduling (a
   notice to the push thread), plus the CPU the background pushes take. The writes are
   interleaved (one "off", one "on", the order alternating each round) so the machine's
   noise hits both alike. A third vault, "on, no sync thread", separates the write path's
   own additions from the pushes competing for the CPU. Target: at most 1 ms added at p50.

    python bench/sync_bench.py [--n 100] [--pull-every 1] [--writes 200] [--writes-only]

Prints a table and writes ``bench/receipts/sync-<date>.json`` (``sync-writes-<date>.json``
with ``--writes-only``) with the load average before and after (the machine may be
shared: the figures move with its load).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import machine_info, now_iso, percentile, render_table, write_receipt
from hoard.adapters.fs.config_file import load_config
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER

TARGET_ADDED_MS = 1.0
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], env=ENV, check=True, capture_output=True)


def note(title: str, body: str) -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [bench, sync]\n"
        f"updated: 2026-12-01\n---\n{body}\n"
    )


def word(i: int) -> str:
    """A word no other note holds (letters only, so it is one search term)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    i += 26**3
    while i:
        i, r = divmod(i, 26)
        out += letters[r]
    return "zq" + out


def make_site(root: Path, toml: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = root / "seed"
    git(root, "clone", "-q", str(remote), str(seed))
    git(seed, "checkout", "-q", "-b", "main")
    (seed / "hoard.toml").write_text(toml, encoding="utf-8")
    (seed / "notes").mkdir()
    for i in range(50):
        (seed / "notes" / f"n{i}.md").write_text(note(f"N{i}", f"Seed note {i}."), "utf-8")
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "seed")
    git(seed, "push", "-q", "origin", "main")
    return remote


def clone(remote: Path, dest: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(dest))
    return dest


def open_hoard(vault: Path, state: Path, pull_every: int, *, watch: bool) -> Hoard:
    config = load_config(vault)
    git_config = dataclasses.replace(config.git, pull_every_s=pull_every)
    return Hoard(vault, state, dataclasses.replace(config, git=git_config), watch=watch)


def found(h: Hoard, w: str, path: str) -> bool:
    """The note itself is a hit (not a near word of an earlier note, by typo tolerance)."""
    return any(r.path == path for r in h.searching.search(w, caller=OWNER, limit=10).results)


def on_demand(root: Path, n: int) -> list[float]:
    remote = make_site(root, '[git]\nremote = "origin"\npull_every_s = 0\n')
    a = open_hoard(clone(remote, root / "a"), root / "sa", 0, watch=False)
    b = open_hoard(clone(remote, root / "b"), root / "sb", 0, watch=False)
    out = []
    try:
        for i in range(n):
            w = word(i)
            t0 = time.perf_counter()
            path = f"bench/d{i}.md"
            a.writes.write(path, note(f"D{i}", f"The word {w}."), caller=OWNER)
            a.sync.sync(caller=OWNER)
            b.sync.sync(caller=OWNER)
            if not found(b, w, path):
                raise SystemExit(f"write {i} did not reach B")
            out.append((time.perf_counter() - t0) * 1000)
            print(f"\ron demand {i + 1}/{n}", end="", file=sys.stderr, flush=True)
    finally:
        a.close()
        b.close()
    print(file=sys.stderr)
    return out


def by_timers(root: Path, n: int, pull_every: int) -> list[float]:
    remote = make_site(root, '[git]\nremote = "origin"\n')
    a = open_hoard(clone(remote, root / "a"), root / "sa", pull_every, watch=True)
    b = open_hoard(clone(remote, root / "b"), root / "sb", pull_every, watch=True)
    out = []
    try:
        for i in range(n):
            w = word(i)
            t0 = time.perf_counter()
            path = f"bench/t{i}.md"
            a.writes.write(path, note(f"T{i}", f"The word {w}."), caller=OWNER)
            deadline = t0 + 60
            while not found(b, w, path):
                if time.perf_counter() > deadline:
                    raise SystemExit(f"write {i} did not reach B within 60 s")
                time.sleep(0.02)
            out.append((time.perf_counter() - t0) * 1000)
            print(f"\rby timers {i + 1}/{n}", end="", file=sys.stderr, flush=True)
    finally:
        a.close()
        b.close()
    print(file=sys.stderr)
    return out


OFF = "sync off ([git] commit, no remote)"
ON = "sync on (remote, push on, sync thread running)"
ON_IDLE = "sync on, no sync thread (no pushes competing)"


def write_costs(root: Path, writes: int) -> dict[str, list[float]]:
    """``vault_write`` times with sync off and on (and on without its thread), interleaved:
    one write each per round, the order turning every round."""
    off = clone(make_site(root / "off", "[git]\ncommit = true\n"), root / "v-off")
    on = clone(make_site(root / "on", '[git]\nremote = "origin"\npush = true\n'), root / "v-on")
    idle = clone(make_site(root / "idle", '[git]\nremote = "origin"\n'), root / "v-idle")
    hoards = {
        OFF: open_hoard(off, root / "s-off", 60, watch=False),
        ON: open_hoard(on, root / "s-on", 60, watch=False),
        ON_IDLE: open_hoard(idle, root / "s-idle", 60, watch=False),
    }
    hoards[ON].sync.start()  # as a server runs it: pushes follow in the background
    times: dict[str, list[float]] = {k: [] for k in hoards}
    names = list(hoards)
    try:
        for i in range(writes):
            for name in names if i % 2 == 0 else reversed(names):
                h = hoards[name]
                t0 = time.perf_counter()
                h.writes.write(f"notes/w{i}.md", note(f"W{i}", f"Write {i}."), caller=OWNER)
                times[name].append((time.perf_counter() - t0) * 1000)
            print(f"\rwrites {i + 1}/{writes}", end="", file=sys.stderr, flush=True)
    finally:
        for h in hoards.values():
            h.close()
    print(file=sys.stderr)
    return times


def stats(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(samples, 50), 2),
        "p95_ms": round(percentile(samples, 95), 2),
        "max_ms": round(max(samples), 2),
    }


def timed(label: str, fn: Callable[[Path], Any]) -> Any:
    with tempfile.TemporaryDirectory(prefix=f"hoard-sync-{label}-") as tmp:
        return fn(Path(tmp))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="writes carried from A to B, per mode")
    ap.add_argument("--pull-every", type=int, default=1, help="B's pull interval (timer mode)")
    ap.add_argument("--writes", type=int, default=200, help="writes per vault, write cost")
    ap.add_argument(
        "--writes-only", action="store_true", help="only the write cost (no A → B runs)"
    )
    args = ap.parse_args()
    load_before = os.getloadavg()
    demand: list[float] = []
    timers: list[float] = []
    if not args.writes_only:
        demand = timed("demand", lambda p: on_demand(p, args.n))
        timers = timed("timers", lambda p: by_timers(p, args.n, args.pull_every))
    costs = timed("writes", lambda p: write_costs(p, args.writes))
    load_after = os.getloadavg()
    rows = [[f"vault_write, {k}", *_cells(v)] for k, v in costs.items()]
    if demand and timers:
        rows[:0] = [
            ["A → B on demand (push, pull, search)", *_cells(demand)],
            [f"A → B by timers (B pulls every {args.pull_every} s)", *_cells(timers)],
        ]
    print(render_table(["what", "p50 ms", "p95 ms", "max ms"], rows))
    base = percentile(costs[OFF], 50)
    added = percentile(costs[ON], 50) - base
    idle = percentile(costs[ON_IDLE], 50) - base
    print(
        f"\nsync adds {added:+.2f} ms to the write p50 (on {percentile(costs[ON], 50):.2f} "
        f"vs off {base:.2f}; target ≤ {TARGET_ADDED_MS:.0f} ms); without the sync thread "
        f"{idle:+.2f} ms; load {load_before[0]:.1f} → {load_after[0]:.1f}"
    )
    receipt = {
        "bench": "sync",
        "at": now_iso(),
        "machine": machine_info(),
        "load_before": load_before,
        "load_after": load_after,
        "args": vars(args),
        "a_to_b_on_demand": stats(demand) if demand else None,
        "a_to_b_by_timers": stats(timers) if timers else None,
        "write": {k: stats(v) for k, v in costs.items()},
        "write_off_means": "the same vault with [git] commit = true and no remote",
        "write_on_means": "the same vault with a remote and push on, the sync thread running",
        "sync_added_p50_ms": round(added, 2),
        "sync_added_without_the_thread_p50_ms": round(idle, 2),
        "target_added_ms": TARGET_ADDED_MS,
        "met": added <= TARGET_ADDED_MS,
    }
    name = "sync-writes" if args.writes_only else "sync"
    print(f"receipt: {write_receipt(name, receipt)}")


def _cells(samples: list[float]) -> list[str]:
    s = stats(samples)
    return [f"{s['p50_ms']:.1f}", f"{s['p95_ms']:.1f}", f"{s['max_ms']:.1f}"]


if __name__ == "__main__":
    main()
