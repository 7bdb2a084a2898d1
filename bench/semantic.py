"""The cost of semantic search (issue 19) on the 13k-note Zettelkasten, one run:

- search latency through MCP (the SDK's in-memory client, the same tool calls an agent
  makes) with the model off (``semantic="false"``) and on, p50/p95 over the same queries;
- the embedding rate (a fresh build of a sample of notes, one thread) and the full build time
  projected from it (the full build itself runs once, in ``make quality``);
- the server's RSS with the model and the vectors loaded;
- the vector search against the bare brute-force matrix product it is made of, and the
  query embedding alone;
- how long a changed note takes to be found semantically in a running server (watcher on).

    python bench/semantic.py [--vault DIR] [--state DIR] [--n 200] [--sample 300]

``--state`` is a state folder whose vectors are already built (``make quality`` leaves one in
``.state/quality/zk-digitalyoshixi``); the vault and that folder are copied to a temporary
folder first (the shared data is never written). Prints a table and writes
``bench/receipts/semantic-<date>.json``. Needs ``make semantic``.
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
from typing import Any

import anyio
import numpy as np
from mcp import Client

from benchlib import evaldata_dir, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.app.hoard import Hoard
from hoard.core.config import Config, SemanticConfig
from hoard.core.policy import OWNER
from hoard.surfaces.mcp.server import HoardMCP

QUESTION = "which obscure tuba tuning trick did the marching band teach me in spring?"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def queries(n: int) -> list[str]:
    path = evaldata_dir() / "zk-digitalyoshixi" / "queries-known-item.jsonl"
    texts = [json.loads(line)["query"] for line in path.read_text().splitlines() if line.strip()]
    random.Random(19).shuffle(texts)
    return texts[:n]


def timed(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def mcp_latency(hoard: Hoard, texts: list[str]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"false": [], "true": []}
    async with Client(HoardMCP(hoard, OWNER).server) as c:
        for text in texts[:5]:
            await c.call_tool("vault_search", {"query": text, "semantic": "true"})
        for text in texts:
            for choice in ("false", "true"):
                t0 = time.perf_counter()
                r = await c.call_tool("vault_search", {"query": text, "semantic": choice})
                out[choice].append((time.perf_counter() - t0) * 1000)
                assert not r.is_error
    return out


def change_to_found(hoard: Hoard, vault: Path, deadline_s: float = 60.0) -> float:
    """Seconds from writing a note to its being the top semantic hit of a question."""
    note = vault / "zz-bench-semantic-change.md"
    note.write_text(
        "---\ntitle: Band practice\n---\nThe marching band taught me to tune "
        "the tuba by ear on a cold spring morning.\n"
    )
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline_s:
        r = hoard.search(QUESTION, limit=1, semantic="true")
        if r.results and r.results[0].path == note.name:
            return time.perf_counter() - t0
        time.sleep(0.1)
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes")
    ap.add_argument("--state", type=Path, default=Path(".state/quality/zk-digitalyoshixi"))
    ap.add_argument("--n", type=int, default=200, help="queries per side")
    ap.add_argument("--sample", type=int, default=300, help="notes embedded afresh for the rate")
    ap.add_argument("--receipt", type=Path, default=None)
    args = ap.parse_args(argv)
    if not (args.state / "semantic.db").is_file():
        print(
            f"semantic bench: no vectors in {args.state} (run make quality first)", file=sys.stderr
        )
        return 2
    started = now_iso()
    rows: list[list[str]] = []
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hoard-semantic-") as tmp:
        vault, state = Path(tmp) / "vault", Path(tmp) / "state"
        shutil.copytree(args.vault, vault)
        shutil.copytree(args.state, state)
        rss0 = rss_mb()
        t0 = time.perf_counter()
        config = Config(semantic=SemanticConfig(enabled=True))
        with Hoard(vault, state, config=config, watch=True) as hoard:
            assert hoard.semantic is not None
            hoard.semantic.load()
            load_s = time.perf_counter() - t0
            assert hoard.semantic.wait_until_current(600), "vectors not current"
            store, model = hoard.semantic.store, hoard.semantic.model
            assert store is not None and model is not None
            texts = queries(args.n)
            lat = anyio.run(mcp_latency, hoard, texts)
            rss = rss_mb()
            q = model.embed(texts[0])
            mat = store._mat[: len(store)]
            embed_ms = timed(lambda: model.embed(texts[1]), 50)
            nearest_ms = timed(lambda: store.nearest(q, 100, None), 200)
            nearest_f_ms = timed(lambda: store.nearest(q, 100, lambda p: not p.startswith("x")), 50)
            product_ms = timed(lambda: np.argpartition(-(mat @ q), 100)[:100], 200)
            changed_s = change_to_found(hoard, vault)
            sample = random.Random(7).sample(sorted(store.revisions()), args.sample)
            texts_sample = hoard.semantic._texts(hoard.index.reader(), sample)
            t1 = time.perf_counter()
            for _, _, text in texts_sample:
                model.embed(text)
            rate = len(texts_sample) / (time.perf_counter() - t1)
            notes = len(store)
    p50 = {k: percentile(v, 50) for k, v in lat.items()}
    result = {
        "notes": notes,
        "backend": model.backend,
        "model_load_s": round(load_s, 2),
        "rss_mb_before_open": round(rss0, 1),
        "rss_mb_model_and_vectors_loaded": round(rss, 1),
        "vectors_mb": round(mat.nbytes / 2**20, 1),
        "mcp_search_ms": {
            k: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
            for k, v in lat.items()
        },
        "mcp_search_added_p50_ms": round(p50["true"] - p50["false"], 2),
        "query_embed_ms_p50": round(percentile(embed_ms, 50), 2),
        "vector_search_ms_p50": round(percentile(nearest_ms, 50), 3),
        "vector_search_filtered_ms_p50": round(percentile(nearest_f_ms, 50), 3),
        "matrix_product_top100_ms_p50": round(percentile(product_ms, 50), 3),
        "embed_notes_per_s": round(rate, 2),
        "projected_full_build_min": round(notes / rate / 60, 1),
        "changed_note_found_s": round(changed_s, 2),
    }
    rows = [[k, json.dumps(v)] for k, v in result.items()]
    print(render_table(["measure", "value"], rows))
    payload = {"kind": "semantic", "started": started, "machine": machine_info(), **result}
    print(f"\nreceipt: {write_receipt('semantic', payload, args.receipt)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
