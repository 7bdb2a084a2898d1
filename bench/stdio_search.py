"""Natural search through the official MCP client over stdio, against the SDK's own floor.

    python bench/stdio_search.py [--vault DIR] [--queries FILE] [--n 400] [--warmup 30] \
        [--baseline CHECKOUT] [--name stdio-search]

In one process, the official ``mcp`` client opens stdio sessions to ``hoard serve`` on a
temporary copy of the vault (default: the zk notes, with their judged known-item queries),
to ``bench/bare_mcp_server.py`` (the SDK's ``MCPServer`` with one tool and nothing of
hoard) and, with ``--baseline``, to ``hoard serve`` of another checkout (its ``src`` first
on ``PYTHONPATH``, its own state folder). Each round makes, in an order that turns every
round, one call of each series: the bare server's ``echo`` (the floor), hoard's
``vault_policy`` (hoard's own no-op), ``vault_search`` (natural mode, limit 10, the round's
query) and, in this process, ``Hoard.searching.search`` on the same query (the search itself,
with no MCP at all). Prints p50/p95 of each series, its p50 over the floor's and the median
of its per-round ratios to the floor's call of the same round (steadier on a shared
machine), and writes
``bench/receipts/<name>-<date>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from benchlib import (
    BENCH_DIR,
    REPO_ROOT,
    evaldata_dir,
    machine_info,
    now_iso,
    percentile,
    render_table,
    write_receipt,
)
from hoard.app.hoard import Hoard
from hoard.benchmark.queries import load_judged
from hoard.core.policy import OWNER

SERVE = "from hoard.surfaces.cli.main import main; main()"
Call = Callable[[int], Awaitable[None]]
FLOOR = "bare echo (floor)"


def server_env(checkout: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(checkout.resolve() / "src"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    return env


def hoard_params(checkout: Path, vault: Path, state: Path, home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVE, "serve", "--vault", str(vault), "--state-dir", str(state)],
        env=server_env(checkout, home),
    )


def checked(result: Any, what: str) -> Any:
    if getattr(result, "is_error", False):
        raise RuntimeError(f"{what} failed: {result.content[0].text[:300]}")
    return result


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, list[float]]:
    vault = tmp / "vault"
    shutil.copytree(args.vault, vault)
    queries = [q.text for q in load_judged(args.queries, vault)]
    say(f"{len(queries)} judged queries; starting servers")
    trees = {"hoard": REPO_ROOT} | ({"hoard-baseline": args.baseline} if args.baseline else {})
    series: dict[str, Call] = {}
    async with AsyncExitStack() as stack:
        bare = await stack.enter_async_context(
            Client(
                StdioServerParameters(
                    command=sys.executable,
                    args=[str(BENCH_DIR / "bare_mcp_server.py")],
                    env=dict(os.environ),
                )
            )
        )
        series[FLOOR] = lambda i: bare_echo(bare)
        for label, tree in trees.items():
            params = hoard_params(tree, vault, tmp / f"state-{label}", tmp / f"home-{label}")
            client = await stack.enter_async_context(Client(params, read_timeout_seconds=120))
            series[f"{label} vault_policy"] = policy_call(client, label)
            series[f"{label} vault_search"] = search_call(client, label, queries)
        local = Hoard(vault, tmp / "state-inprocess")
        stack.callback(local.close)

        async def in_process(i: int) -> None:
            local.searching.search(queries[i % len(queries)], limit=10, caller=OWNER)

        series["in process: search"] = in_process
        return await rounds(series, args.n, args.warmup)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def bare_echo(client: Client) -> None:
    checked(await client.call_tool("echo", {"text": "x"}), "echo")


def policy_call(client: Client, label: str) -> Call:
    async def call(i: int) -> None:
        checked(await client.call_tool("vault_policy", {}), f"{label} vault_policy")

    return call


def search_call(client: Client, label: str, queries: list[str]) -> Call:
    async def call(i: int) -> None:
        q = queries[i % len(queries)]
        checked(await client.call_tool("vault_search", {"query": q}), f"{label} search")

    return call


async def rounds(series: dict[str, Call], n: int, warmup: int) -> dict[str, list[float]]:
    names = list(series)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in range(warmup + n):
        k = i % len(names)
        for name in names[k:] + names[:k]:
            t0 = time.perf_counter()
            await series[name](i)
            if i >= warmup:
                times[name].append((time.perf_counter() - t0) * 1000)
        if i == warmup - 1:
            await asyncio.sleep(3)  # let the servers' start-up background work settle
    return times


def main() -> int:
    zk = evaldata_dir() / "zk-digitalyoshixi"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, default=zk / "notes")
    ap.add_argument("--queries", type=Path, default=zk / "queries-known-item.jsonl")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--baseline", type=Path, help="another checkout's root, timed in turns")
    ap.add_argument("--name", default="stdio-search")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hoard-stdio-") as tmp:
        times = asyncio.run(run(args, Path(tmp)))
    base = times[FLOOR]
    floor = percentile(base, 50)
    rows: list[list[str]] = []
    out: dict[str, Any] = {}
    for name, v in times.items():
        p50, p95 = percentile(v, 50), percentile(v, 95)
        paired = statistics.median(a / b for a, b in zip(v, base, strict=True))
        out[name] = {
            "n": len(v),
            "p50_ms": p50,
            "p95_ms": p95,
            "mean_ms": statistics.fmean(v),
            "p50_over_floor": p50 / floor,
            "median_round_ratio_to_floor": paired,
        }
        rows.append(
            [name, str(len(v)), f"{p50:.2f}", f"{p95:.2f}", f"{p50 / floor:.2f}x", f"{paired:.2f}x"]
        )
    head = ["series", "n", "p50 ms", "p95 ms", "p50 / floor p50", "median of round ratios"]
    print(render_table(head, rows))
    if args.baseline:
        this, old = times["hoard vault_search"], times["hoard-baseline vault_search"]
        ratio = statistics.median(a / b for a, b in zip(this, old, strict=True))
        out["search_this_to_baseline_median_round_ratio"] = ratio
        print(f"vault_search, this / baseline, median of round ratios: {ratio:.3f}")
    write_receipt(
        args.name,
        {
            "when": now_iso(),
            "machine": machine_info(),
            "vault": str(args.vault),
            "queries": str(args.queries),
            "baseline": str(args.baseline) if args.baseline else None,
            "series": out,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
