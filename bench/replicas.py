"""Replicas on PostgreSQL beside one process on SQLite, side by side in one run on the zk
vault: write p50/p95 and writes/s with 8 concurrent writers, search p50, and the delay from a
write on one replica to a search hit on the other.

Three set-ups run at once, each on its own copy of the vault, and take turns round by round
(so the shared machine's noise falls on all of them): one ``hoard serve --http`` on files of
its state folder (SQLite), one on a PostgreSQL store, and two on one PostgreSQL store with the
writers spread over both. Each writer appends to a note of its own (a revision-checked PUT
from the revision its last write returned), so the figures are the write path's, not a
retry loop's. PostgreSQL is a throwaway cluster of Debian's ``postgresql`` started here
(``--store-url`` to use another), on the same 2 cores.

``--before SRC`` adds the same three set-ups running another checkout's code (its ``src``
first on ``PYTHONPATH``, this venv's packages; e.g. ``git worktree add ../before main``), so
before and after are measured side by side in one run. Each round also samples the floor
under what PostgreSQL adds (:mod:`store_floor`).

``.venv/bin/python bench/replicas.py [--rounds 5] [--writes 10] [--before SRC]``; writes
``bench/receipts/replicas-<date>.json``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from benchlib import evaldata_dir, machine_info, now_iso, percentile, write_receipt
from hoard.adapters.store.components import migrate_all
from hoard.adapters.store.pg import PostgresServer
from hoard.benchmark import pgcluster
from hoard.benchmark.server import free_port, hoard_cmd
from store_floor import Floor

WRITERS = 8
HEAD = (
    "---\ntitle: Bench {n}\ntype: note\nstatus: active\ntags: [bench, replicas]\n"
    "updated: 2026-12-02\n---\n"
)
QUERIES = [
    "graph",
    "memory",
    "linear algebra",
    "network protocol",
    "compiler",
    "entropy",
    "kernel",
    "probability",
    "database index",
    "neural",
]


@dataclass
class Node:
    """One ``hoard serve --http`` process."""

    name: str
    port: int
    proc: subprocess.Popen[bytes]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1"


@dataclass
class Setup:
    label: str
    nodes: list[Node]
    token: str
    write_ms: list[float] = field(default_factory=list)
    alone_ms: list[float] = field(default_factory=list)
    writes_per_s: list[float] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    revisions: dict[int, str] = field(default_factory=dict)

    def client(self, i: int) -> httpx2.Client:
        return httpx2.Client(
            base_url=self.nodes[i % len(self.nodes)].base,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=60,
        )


def _run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([*hoard_cmd(), *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"hoard {' '.join(args)}: {done.stderr}")
    return done.stdout.strip()


def _start(name: str, vault: Path, state: Path, env: dict[str, str], extra: list[str]) -> Node:
    port = free_port()
    with (state.parent / f"{name}.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                *hoard_cmd(),
                "serve",
                "--vault",
                str(vault),
                "--state-dir",
                str(state),
                "--http",
                f"127.0.0.1:{port}",
                "--replica",
                name,
                *extra,
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    return Node(name, port, proc)


def _wait_ready(setup: Setup) -> None:
    for node in setup.nodes:
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            if node.proc.poll() is not None:
                raise RuntimeError(f"{setup.label}/{node.name} exited early")
            try:
                with httpx2.Client(timeout=2) as c:
                    if c.get(f"http://127.0.0.1:{node.port}/healthz").status_code == 200:
                        break
            except httpx2.TransportError:
                pass
            time.sleep(0.1)


def _make_setup(
    label: str, replicas: int, url: str, root: Path, source: Path, code: Path | None = None
) -> Setup:
    """``code``: another checkout's ``src`` to run instead of this one."""
    vault = root / label / "vault"
    shutil.copytree(source, vault)
    (vault / "bench").mkdir()
    for n in range(WRITERS):
        (vault / "bench" / f"w{n}.md").write_text(HEAD.format(n=n) + "start\n")
    env = dict(os.environ, XDG_CONFIG_HOME=str(root / label / "xdg"))
    if code is not None:
        env["PYTHONPATH"] = str(code)
    tokens: list[str] = []
    if url:
        env["HOARD_STORE_URL"] = url
    else:
        tokens = ["--tokens", str(root / label / "tokens.json")]
    token = _run(
        env, "token", "add", "bench", "--scopes", "read,write", "--write-mode", "direct", *tokens
    )
    nodes = [
        _start(f"{label}-{i}", vault, root / label / f"state-{i}", env, tokens)
        for i in range(replicas)
    ]
    return Setup(label, nodes, token)


def _if_match(revision: str) -> dict[str, str]:
    return {"If-Match": f'"{revision}"', "Content-Type": "text/markdown"}


def _write_round(setup: Setup, writes: int) -> None:
    def writer(n: int) -> list[float]:
        out: list[float] = []
        rel = f"bench/w{n}.md"
        with setup.client(n) as c:
            rev = setup.revisions.get(n) or c.get(f"/notes/{rel}").headers["etag"].strip('"')
            for k in range(writes):
                t = time.perf_counter()
                text = HEAD.format(n=n) + f"line {k} {time.time()}\n"
                r = c.put(f"/notes/{rel}", content=text, headers=_if_match(rev))
                out.append((time.perf_counter() - t) * 1000)
                if r.status_code != 200:
                    raise RuntimeError(f"{setup.label}: {r.status_code} {r.text}")
                rev = r.json()["revision"]
            setup.revisions[n] = rev
        return out

    t0 = time.perf_counter()
    with ThreadPoolExecutor(WRITERS) as pool:
        for times in pool.map(writer, range(WRITERS)):
            setup.write_ms.extend(times)
    setup.writes_per_s.append(WRITERS * writes / (time.perf_counter() - t0))


def _alone_round(setup: Setup, writes: int) -> None:
    """One writer alone (the others idle): a write's own cost, without 8 writers' CPU."""
    with setup.client(0) as c:
        rev = setup.revisions.get(0) or c.get("/notes/bench/w0.md").headers["etag"].strip('"')
        for k in range(writes):
            t = time.perf_counter()
            r = c.put(
                "/notes/bench/w0.md",
                content=HEAD.format(n=0) + f"alone {k}\n",
                headers=_if_match(rev),
            )
            setup.alone_ms.append((time.perf_counter() - t) * 1000)
            r.raise_for_status()
            rev = r.json()["revision"]
        setup.revisions[0] = rev


def _search_round(setup: Setup) -> None:
    with setup.client(0) as c:
        for q in QUERIES:
            t = time.perf_counter()
            c.get("/search", params={"q": q}).raise_for_status()
            setup.search_ms.append((time.perf_counter() - t) * 1000)


def _freshness(setup: Setup, n: int) -> list[float]:
    delays: list[float] = []
    with setup.client(0) as a, setup.client(1) as b:
        for i in range(n):
            word = f"freshword{i}x{os.getpid()}"
            body = HEAD.format(n=f"fresh {i}") + f"The {word} is new.\n"
            new = {"If-None-Match": "*", "Content-Type": "text/markdown"}
            a.put(f"/notes/bench/fresh-{i}.md", content=body, headers=new).raise_for_status()
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 10:
                hits = b.get("/search", params={"q": word}).json()["results"]
                if hits:
                    break
                time.sleep(0.002)
            delays.append((time.perf_counter() - t0) * 1000)
    return delays


@contextmanager
def _store_urls(given: str, count: int) -> Iterator[list[str]]:
    if given:
        yield [given] * count
        return
    bindir = pgcluster.server_bindir()
    if bindir is None:
        raise SystemExit("Debian's postgresql is not installed (apt-get install postgresql)")
    cluster = pgcluster.Cluster(bindir)
    try:
        yield [cluster.new_database() for _ in range(count)]
    finally:
        cluster.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--writes", type=int, default=10, help="per writer per round")
    ap.add_argument("--fresh", type=int, default=40, help="freshness samples")
    ap.add_argument("--store-url", default="")
    ap.add_argument("--receipt", type=Path, default=None)
    ap.add_argument("--before", type=Path, default=None, help="another checkout's src")
    ap.add_argument("--floor", type=int, default=20, help="floor samples per round")
    opts = ap.parse_args()
    source = opts.vault or evaldata_dir() / "zk-digitalyoshixi" / "notes"
    with (
        _store_urls(opts.store_url, 5 if opts.before else 3) as urls,
        tempfile.TemporaryDirectory() as tmp,
        ExitStack() as stack,
    ):
        for url in urls:
            server = PostgresServer(url, "bench-setup")
            migrate_all(server)
            server.close()
        root = Path(tmp)
        setups = [
            _make_setup("sqlite-x1", 1, "", root, source),
            _make_setup("postgres-x1", 1, urls[0], root, source),
            _make_setup("postgres-x2", 2, urls[1], root, source),
        ]
        if opts.before is not None:
            code = opts.before.resolve()
            setups += [
                _make_setup("sqlite-x1-before", 1, "", root, source, code),
                _make_setup("postgres-x1-before", 1, urls[3], root, source, code),
                _make_setup("postgres-x2-before", 2, urls[4], root, source, code),
            ]
        for s in setups:
            for node in s.nodes:
                stack.callback(node.proc.terminate)
        for s in setups:
            _wait_ready(s)
        floor = Floor(urls[2])
        stack.callback(floor.close)
        for _ in range(opts.rounds):
            for s in setups:
                _write_round(s, opts.writes)
                _alone_round(s, opts.writes)
                _search_round(s)
            floor.round(opts.floor)
        fresh = _freshness(setups[2], opts.fresh)
        fresh_before = _freshness(setups[5], opts.fresh) if opts.before else []
        _report(setups, fresh, fresh_before, floor.samples, opts)
    return 0


def _compare(rows: dict[str, dict[str, float]], tag: str) -> dict[str, float]:
    """What PostgreSQL adds over SQLite, and two replicas over one, for the set-ups whose
    labels end in ``tag`` ("" or "-before")."""
    sq, pg, pg2 = rows[f"sqlite-x1{tag}"], rows[f"postgres-x1{tag}"], rows[f"postgres-x2{tag}"]
    return {
        "postgres_added_write_p50_ms": pg["write_p50_ms"] - sq["write_p50_ms"],
        "postgres_added_write_p50_ms_one_writer": pg["alone_write_p50_ms"]
        - sq["alone_write_p50_ms"],
        "two_over_one_writes_per_s": pg2["writes_per_s"] / pg["writes_per_s"],
    }


def _report(
    setups: list[Setup],
    fresh: list[float],
    fresh_before: list[float],
    floor: dict[str, list[float]],
    opts: argparse.Namespace,
) -> None:
    rows = {
        s.label: {
            "write_p50_ms": percentile(s.write_ms, 50),
            "write_p95_ms": percentile(s.write_ms, 95),
            "alone_write_p50_ms": percentile(s.alone_ms, 50),
            "writes_per_s": statistics.median(s.writes_per_s),
            "search_p50_ms": percentile(s.search_ms, 50),
            "writes": len(s.write_ms),
        }
        for s in setups
    }
    print("| set-up | write p50 ms | write p95 ms | writes/s | one writer p50 ms | search p50 ms |")
    print("|---|---|---|---|---|---|")
    for label, r in rows.items():
        print(
            f"| {label} | {r['write_p50_ms']:.2f} | {r['write_p95_ms']:.2f} | "
            f"{r['writes_per_s']:.0f} | {r['alone_write_p50_ms']:.2f} | "
            f"{r['search_p50_ms']:.2f} |"
        )
    after = _compare(rows, "")
    before = _compare(rows, "-before") if opts.before else None
    for name, c in (("after", after), ("before", before)):
        if c is None:
            continue
        print(
            f"{name}: postgres adds {c['postgres_added_write_p50_ms']:+.2f} ms to a write's "
            f"p50 with 8 writers, {c['postgres_added_write_p50_ms_one_writer']:+.2f} ms with "
            f"one (target at most +1 ms); two replicas give "
            f"{c['two_over_one_writes_per_s']:.2f}x one's writes/s (target > 1)"
        )
    floors = {k: {"p50_ms": percentile(v, 50), "n": len(v)} for k, v in floor.items()}
    for k, v in floors.items():
        print(f"floor {k}: p50 {v['p50_ms']:.3f} ms")
    f50, f99 = percentile(fresh, 50), percentile(fresh, 99)
    print(f"freshness A -> search hit on B: p50 {f50:.0f} ms, p99 {f99:.0f} ms (target p99 < 1000)")
    receipt = {
        "at": now_iso(),
        "machine": machine_info(),
        "load": os.getloadavg(),
        "rounds": opts.rounds,
        "writers": WRITERS,
        "writes_per_writer_per_round": opts.writes,
        "setups": rows,
        **after,
        "freshness_ms": {"p50": f50, "p99": f99, "n": len(fresh)},
        "floor": floors,
    }
    if before is not None:
        receipt["before"] = {
            "code": str(opts.before),
            "how": "the same set-ups running the before checkout's src (PYTHONPATH), in "
            "turns with these, in this run",
            **before,
            "freshness_ms": {
                "p50": percentile(fresh_before, 50),
                "p99": percentile(fresh_before, 99),
                "n": len(fresh_before),
            },
        }
    print(f"receipt: {write_receipt('replicas', receipt, opts.receipt)}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
