"""``vault_search`` over Streamable HTTP of two checkouts on one vault, query by query in turns.

    python bench/http_search.py --vault DIR --state DIR [--baseline CHECKOUT --base-state DIR] \
        [--n 100] [--warmup 20] [--passes 1] [--seed 20261130] [--name http-search]

The search phase of ``hoard bench`` alone, on a vault whose index is already built (the
scale bench's 250k generated vault takes minutes to write and index): ``hoard serve --http``
of this checkout (and of ``--baseline``, its ``src`` first on ``PYTHONPATH``, on its own copy
of the index in ``--base-state``) on loopback, a bench token, the official client
(``streamable_http_client``) per server. The queries are those ``hoard bench --seed`` times
on the vault (bench/search_inturns.py); after the servers' start-up checks settle, each
query goes to every server in turn (the order turning each query). Prints p50/p95 per
checkout and the median per-query ratio; writes ``bench/receipts/<name>-<date>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from benchlib import REPO_ROOT, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.benchmark.server import ServerProcess, free_port, make_token
from search_inturns import choose_queries


def titles_of(state: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(f"file:{state / 'index.db'}?mode=ro", uri=True) as conn:
        return [(str(p), str(t)) for p, t in conn.execute("SELECT path, title FROM notes")]


def start(tree: Path, vault: Path, state: Path, tokens: Path, log: Path) -> ServerProcess:
    server = ServerProcess(vault, state, tokens, free_port(), log)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tree.resolve() / "src")
    try:
        server.start()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return server


Timed = tuple[dict[str, list[float]], list[dict[str, Any]]]


async def timed(
    servers: dict[str, ServerProcess], token: str, queries: list[str], args: Any
) -> Timed:
    names = list(servers)
    times: dict[str, list[float]] = {n: [] for n in names}
    per_query: list[dict[str, Any]] = []
    headers = {"Authorization": f"Bearer {token}"}
    async with AsyncExitStack() as stack:
        clients = {}
        for n in names:
            hc = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=120))
            url = f"{servers[n].base}/mcp"
            clients[n] = await stack.enter_async_context(
                Client(streamable_http_client(url, http_client=hc))
            )
        for p in range(args.passes):
            for i, q in enumerate(queries):
                k = (i + p) % len(names)
                got: dict[str, float] = {}
                for n in names[k:] + names[:k]:
                    t0 = time.perf_counter()
                    res = await clients[n].call_tool("vault_search", {"query": q})
                    got[n] = (time.perf_counter() - t0) * 1000
                    if res.is_error:
                        raise RuntimeError(f"{n}: {str(res.content[0])[:300]}")
                if i >= args.warmup:
                    for n in names:
                        times[n].append(got[n])
                    per_query.append({"q": q, **got})
    return times, per_query


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--state", type=Path, required=True)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--base-state", type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--queries", type=Path)
    ap.add_argument("--name", default="http-search")
    args = ap.parse_args()
    queries = choose_queries(args.vault, titles_of(args.state), args)
    trees = {"this": (REPO_ROOT, args.state)}
    if args.baseline is not None:
        trees["baseline"] = (args.baseline, args.base_state)
    with tempfile.TemporaryDirectory(prefix="hoard-http-search-") as tmp_name:
        tmp = Path(tmp_name)
        token = make_token(tmp / "tokens.json")
        servers = {
            n: start(tree, args.vault, state, tmp / "tokens.json", tmp / f"{n}.log")
            for n, (tree, state) in trees.items()
        }
        try:
            for n, s in servers.items():
                print(f"{n}: healthy after {s.wait_healthy():.1f} s", file=sys.stderr)
            for n, s in servers.items():
                print(f"{n}: idle after {s.wait_idle(timeout_s=900):.1f} s", file=sys.stderr)
            times, per_query = asyncio.run(timed(servers, token, queries, args))
        finally:
            for s in servers.values():
                s.stop()
    out: dict[str, Any] = {}
    rows = []
    for n, v in times.items():
        out[n] = {"n": len(v), "p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)}
        rows.append([n, str(len(v)), f"{out[n]['p50_ms']:.2f}", f"{out[n]['p95_ms']:.2f}"])
    print(render_table(["code", "n", "p50 ms", "p95 ms"], rows))
    if len(times) > 1:
        ratio = statistics.median(r["this"] / r["baseline"] for r in per_query)
        out["median_ratio_this_to_baseline"] = ratio
        print(f"median per-query ratio this/baseline: {ratio:.3f}")
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
            "per_query": per_query,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
