"""The cost of semantic search (issue 19) on the 13k-note Zettelkasten, in one run:

1. **Build**, in process: the index of a copy of the vault, then every note's vector from
   nothing (``hoard index``'s path: 2 texts at a time on 2 cores, 32 notes a commit), timed.
   ``--vectors FILE`` copies a ``semantic.db`` built before instead and times a sample.
2. **Vector search against a bare matrix product**, in process on the built vectors: the
   query's embedding alone, :meth:`VectorStore.nearest` (unfiltered and with a caller
   filter), and the brute-force product plus ``argpartition`` it is made of.
3. **The server**: ``hoard serve --http`` on the copy (model on, watcher on), the official MCP
   client over loopback HTTP with a bearer token. Once its vectors are loaded: its RSS, and
   ``vault_search`` p50/p95 with ``semantic="false"`` and ``"true"`` over the same queries,
   side by side (each query asked once each way, alternating which goes first; the query
   cache never helps). Besides the target's measure (the difference of the two p50s), the
   median of each query's own difference (robust to a slow spell of the shared machine) and
   the part of it inside the search (the server's ``took_ms``). Then a changed note: a note
   written into the vault, and the seconds until ``vault_similar`` of an anchor note written
   before it lists it (the semantic path alone: the watcher, the index, the background
   embedding, the vector store), and until ``vault_search`` with ``semantic="true"`` ranks
   it first for a question in other words.

    python bench/semantic.py [--vault DIR] [--n 500] [--vectors FILE] [--save-vectors FILE]

The shared data is never written. Prints a table and writes ``bench/receipts/semantic-<date>
.json`` with the machine's load average before and after. Needs ``make semantic``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import numpy as np
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from benchlib import evaldata_dir, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.adapters.semantic.service import BUILD_THREADS
from hoard.app.hoard import Hoard
from hoard.benchmark.server import ServerProcess, free_port, make_token, proc_status_mb

ANCHOR = "zz-bench-anchor.md"
CHANGED = "zz-bench/tuba.md"
ANCHOR_TEXT = (
    "---\ntitle: Brass tuning\n---\nOur band teacher showed us how to tune a tuba by ear: "
    "play against a sustained note and listen for the beating to slow down.\n"
)
CHANGED_TEXT = (
    "---\ntitle: Tuba tuning\n---\nMarching band taught me tuning tubas on cold spring "
    "mornings: sustain long notes against the reference, wait until beating stops.\n"
)
QUESTION = "how did I learn to get a brass instrument in pitch without any gadget?"
"""Shares no word with the changed note: only the semantic side can find it."""
SEMANTIC_ON = "\n[semantic]\nenabled = true\n"


def load_avg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


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


def stats(ms: list[float], digits: int = 2) -> dict[str, float]:
    return {"p50": round(percentile(ms, 50), digits), "p95": round(percentile(ms, 95), digits)}


def say(text: str) -> None:
    print(f"[semantic bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# -- 1 and 2: in process --------------------------------------------------------------------------


def build(vault: Path, state: Path, vectors: Path | None, sample: int) -> dict[str, Any]:
    """Index the copy, then embed every note (or load ``vectors`` and time a sample)."""
    out: dict[str, Any] = {"build_threads": BUILD_THREADS, "load_before_build": load_avg()}
    t0 = time.perf_counter()
    with Hoard(vault, state) as hoard:
        out["index_build_s"] = round(time.perf_counter() - t0, 1)
        assert hoard.semantic is not None, "the vault copy has no [semantic] enabled = true"
        if vectors is not None:
            shutil.copy(vectors, state / "semantic.db")
        last = [time.monotonic()]

        def progress(done: int, total: int) -> None:
            if time.monotonic() - last[0] > 30:
                last[0] = time.monotonic()
                say(f"embedded {done}/{total} (load {load_avg()[0]})")

        t1 = time.perf_counter()
        embedded = hoard.similarity.build(progress)
        build_s = time.perf_counter() - t1
        model, store = hoard.semantic.model, hoard.semantic.store
        assert model is not None and store is not None
        out.update(notes=len(store), backend=model.backend, model_id=store.model_id)
        if embedded >= 1000:
            out["full_build"] = {
                "notes": embedded,
                "minutes": round(build_s / 60, 2),
                "notes_per_s": round(embedded / build_s, 1),
            }
        else:
            out["sample_build"] = sample_rate(hoard, sample)
        out["load_after_build"] = load_avg()
        out.update(vector_costs(hoard))
    return out


def sample_rate(hoard: Hoard, sample: int) -> dict[str, float]:
    """Notes per second embedding a random sample afresh (as the builder does)."""
    semantic = hoard.semantic
    assert semantic is not None and semantic.model is not None and semantic.store is not None
    paths = random.Random(7).sample(sorted(semantic.store.revisions()), sample)
    texts = [t for _, _, t in semantic._texts(hoard.index.reader(), paths)]
    t0 = time.perf_counter()
    semantic.model.embed_many(texts, BUILD_THREADS)
    rate = len(texts) / (time.perf_counter() - t0)
    return {
        "notes": len(texts),
        "notes_per_s": round(rate, 1),
        "projected_full_minutes": round(len(semantic.store) / rate / 60, 2),
    }


def vector_costs(hoard: Hoard) -> dict[str, Any]:
    """The query's embedding alone, then the vector search and what it is made of, timed
    in turns (one of each per round: the memory bandwidth that the product needs moves with
    the other sessions on the machine, so only side-by-side figures compare)."""
    semantic = hoard.semantic
    assert semantic is not None and semantic.model is not None and semantic.store is not None
    model, store = semantic.model, semantic.store
    texts = queries(60)
    q = model.embed(texts[0])
    mat = store._mat[: len(store)]
    it = iter(texts * 10)
    contenders: dict[str, Callable[[], object]] = {
        "nearest_100_ms": lambda: store.nearest(q, 100, None),
        "nearest_100_filtered_ms": lambda: store.nearest(q, 100, lambda p: not p.startswith("x")),
        "bare_product_ms": lambda: mat @ q,
        "bare_product_argpartition_ms": lambda: np.argpartition(-(mat @ q), 100)[:100],
        "bare_product_full_sort_ms": lambda: np.argsort(-(mat @ q)),
    }
    ms: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(200):
        for key, fn in contenders.items():
            ms[key] += timed(fn, 1)
    return {
        "vectors_mb": round(mat.nbytes / 2**20, 1),
        "query_embedding_ms": stats(timed(lambda: model.embed(next(it)), 60)),
        **{k: stats(v, 3) for k, v in ms.items()},
    }


# -- 3: the server ---------------------------------------------------------------------------------


async def poll(
    fn: Callable[[], Awaitable[bool]], deadline_s: float, step_s: float = 0.1
) -> float | None:
    """Seconds until ``fn()`` says yes, or ``None`` at the deadline."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline_s:
        if await fn():
            return round(time.perf_counter() - t0, 2)
        await anyio.sleep(step_s)
    return None


async def served(base: str, token: str, pid: int, vault: Path, n: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120.0) as hc,
        Client(streamable_http_client(f"{base}/mcp", http_client=hc)) as c,
    ):

        async def search(query: str, semantic: str, limit: int = 10) -> dict[str, Any]:
            r = await c.call_tool(
                "vault_search", {"query": query, "semantic": semantic, "limit": limit}
            )
            assert not r.is_error, r.content
            data: dict[str, Any] = r.structured_content or {}
            return data

        async def blended() -> bool:
            r = await search("tuning", "true")
            kinds = {w.get("kind") for w in r.get("warnings", [])}
            return r.get("engine") == "fts5+semantic" and "semantic_partial" not in kinds

        ready_s = await poll(blended, 900, 0.5)
        out: dict[str, Any] = {"semantic_ready_s": ready_s, "load_at_server": load_avg()}
        texts = queries(n)
        for text in texts[:5]:
            await search(text + " warm", "true")
        out["server_rss_mb"] = proc_status_mb(pid)
        lat: dict[str, list[float]] = {"false": [], "true": []}
        took: dict[str, list[float]] = {"false": [], "true": []}
        for i, text in enumerate(texts):
            for choice in ("false", "true") if i % 2 == 0 else ("true", "false"):
                t0 = time.perf_counter()
                answer = await search(text, choice)
                lat[choice].append((time.perf_counter() - t0) * 1000)
                took[choice].append(float(answer["took_ms"]))
        out.update(added(lat, took))
        out["load_after_latency"] = load_avg()
        out["server_rss_mb_after"] = proc_status_mb(pid)
        out.update(await changed_note(c, search, vault))
    return out


def added(lat: dict[str, list[float]], took: dict[str, list[float]]) -> dict[str, Any]:
    """What the model adds: the target's measure (the difference of the two p50s through
    MCP), the median of each query's own difference (the two searches of a query ran side
    by side, so a slow spell of the shared machine cancels out), and the same split into
    the search itself (the server's ``took_ms``) and the rest (transport, JSON)."""
    pairs = [t - f for t, f in zip(lat["true"], lat["false"], strict=True)]
    server = [t - f for t, f in zip(took["true"], took["false"], strict=True)]
    return {
        "mcp_search_ms": {k: stats(v) for k, v in lat.items()},
        "mcp_added_p50_ms": round(percentile(lat["true"], 50) - percentile(lat["false"], 50), 2),
        "mcp_added_paired_median_ms": round(percentile(pairs, 50), 2),
        "server_took_ms": {k: stats(v) for k, v in took.items()},
        "server_added_paired_median_ms": round(percentile(server, 50), 2),
    }


async def changed_note(
    c: Client, search: Callable[..., Awaitable[dict[str, Any]]], vault: Path
) -> dict[str, Any]:
    """Seconds from writing a note to its being found by the running server's semantic
    path: listed by ``vault_similar`` of an anchor note written before it, and returned by
    ``vault_search`` (``semantic="true"``, its folder only) for a question that shares no
    word with it (``semantic="false"`` is asked last, to show the hit was semantic)."""
    (vault / ANCHOR).write_text(ANCHOR_TEXT)

    async def anchored() -> bool:
        r = await c.call_tool("vault_similar", {"path": ANCHOR, "limit": 1})
        return not r.is_error and (r.structured_content or {}).get("engine") == "semantic"

    await poll(anchored, 60)
    await anyio.sleep(3)  # the anchor's own vector stored by the builder, not made on demand

    async def similar_lists_it() -> bool:
        r = await c.call_tool("vault_similar", {"path": ANCHOR, "limit": 3})
        return any(h["path"] == CHANGED for h in (r.structured_content or {}).get("results", []))

    async def search_finds_it() -> bool:
        r = await c.call_tool(
            "vault_search", {"query": QUESTION, "semantic": "true", "folder": "zz-bench"}
        )
        return any(h["path"] == CHANGED for h in (r.structured_content or {}).get("results", []))

    (vault / CHANGED).parent.mkdir(exist_ok=True)
    (vault / CHANGED).write_text(CHANGED_TEXT)
    t0 = time.perf_counter()
    similar_s = await poll(similar_lists_it, 60)
    found = await poll(search_finds_it, max(1.0, 60 - (time.perf_counter() - t0)))
    search_s = None if found is None else round(time.perf_counter() - t0, 2)
    lexical = await c.call_tool(
        "vault_search", {"query": QUESTION, "semantic": "false", "folder": "zz-bench"}
    )
    return {
        "changed_note_in_vault_similar_s": similar_s,
        "changed_note_in_semantic_search_s": search_s,
        "same_search_lexical_only": {
            k: (lexical.structured_content or {}).get(k)
            for k in ("engine", "results", "typo_corrections", "warnings")
        },
    }


def serve(tmp: Path, vault: Path, state: Path, n: int) -> dict[str, Any]:
    tokens = tmp / "tokens.json"
    token = make_token(tokens)
    server = ServerProcess(vault, state, tokens, free_port(), tmp / "server.log")
    server.start()
    try:
        out: dict[str, Any] = {"server_healthy_s": round(server.wait_healthy(), 2)}
        out.update(anyio.run(served, server.base, token, server.pid, vault, n))
        return out
    finally:
        server.stop()


# -- the run ------------------------------------------------------------------------------------


def copy_vault(source: Path, dest: Path) -> None:
    shutil.copytree(source, dest)
    toml = dest / "hoard.toml"
    text = toml.read_text() if toml.is_file() else ""
    if "[semantic]" not in text:
        toml.write_text(text + SEMANTIC_ON)


def rows_of(result: dict[str, Any]) -> list[list[str]]:
    server = result["server"]
    built = result["build"]
    rows = [
        ["MCP vault_search semantic=false p50 / p95 ms", _pp(server["mcp_search_ms"]["false"])],
        ["MCP vault_search semantic=true p50 / p95 ms", _pp(server["mcp_search_ms"]["true"])],
        ["added p50 ms (target <= 10)", str(server["mcp_added_p50_ms"])],
        ["  median of each query's own difference", str(server["mcp_added_paired_median_ms"])],
        [
            "  of it in the search (server took_ms, paired median)",
            str(server["server_added_paired_median_ms"]),
        ],
        ["query embedding alone p50 / p95 ms", _pp(built["query_embedding_ms"])],
        ["vector search top-100 p50 / p95 ms", _pp(built["nearest_100_ms"])],
        ["  with a caller filter", _pp(built["nearest_100_filtered_ms"])],
        ["  bare product alone", _pp(built["bare_product_ms"])],
        ["  bare product + argpartition", _pp(built["bare_product_argpartition_ms"])],
        ["  bare product + full sort", _pp(built["bare_product_full_sort_ms"])],
        [
            "server RSS MB, model + vectors loaded (target < 300)",
            json.dumps(server["server_rss_mb"]),
        ],
        [
            "changed note listed by vault_similar, s (target <= 5)",
            str(server["changed_note_in_vault_similar_s"]),
        ],
        [
            "changed note found by vault_search (semantic), s",
            str(server["changed_note_in_semantic_search_s"]),
        ],
        [
            "  the same search lexical-only: hits",
            str(len(server["same_search_lexical_only"]["results"] or [])),
        ],
    ]
    if "full_build" in built:
        fb = built["full_build"]
        rows.insert(
            0,
            [
                "full embedding build (target < 10 min)",
                f"{fb['notes']} notes in {fb['minutes']} min, {fb['notes_per_s']}/s",
            ],
        )
    else:
        sb = built["sample_build"]
        rows.insert(
            0,
            [
                "embedding rate (sample), projected full build",
                f"{sb['notes_per_s']}/s, {sb['projected_full_minutes']} min",
            ],
        )
    rows.append(
        [
            "1-min load: before build / after build / server / end",
            f"{built['load_before_build'][0]} / {built['load_after_build'][0]} / "
            f"{server['load_at_server'][0]} / {result['load_end'][0]}",
        ]
    )
    return rows


def _pp(s: dict[str, float]) -> str:
    return f"{s['p50']} / {s['p95']}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes")
    ap.add_argument("--n", type=int, default=500, help="queries each way through MCP")
    ap.add_argument("--vectors", type=Path, default=None, help="a semantic.db to start from")
    ap.add_argument("--save-vectors", type=Path, default=None, help="copy the built vectors here")
    ap.add_argument("--sample", type=int, default=300, help="notes timed with --vectors")
    ap.add_argument("--receipt", type=Path, default=None)
    args = ap.parse_args(argv)
    started = now_iso()
    with tempfile.TemporaryDirectory(prefix="hoard-semantic-") as tmp_name:
        tmp = Path(tmp_name)
        vault, state = tmp / "vault", tmp / "state"
        copy_vault(args.vault, vault)
        say(f"building (load {load_avg()})")
        result: dict[str, Any] = {"build": build(vault, state, args.vectors, args.sample)}
        if args.save_vectors is not None:
            shutil.copy(state / "semantic.db", args.save_vectors)
        say(f"serving (load {load_avg()})")
        result["server"] = serve(tmp, vault, state, args.n)
    result["load_end"] = load_avg()
    print(render_table(["measure", "value"], rows_of(result)))
    payload = {"kind": "semantic", "started": started, "machine": machine_info(), **result}
    print(f"\nreceipt: {write_receipt('semantic', payload, args.receipt)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
