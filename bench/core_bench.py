"""In-process timings of hoard's core paths on a real vault, beside naive baselines.

    python bench/core_bench.py [--vault PATH] [--queries N]

Default vault: ``$HOARD_EVALDATA/zk-digitalyoshixi/notes`` (13k short notes). The index goes
to a temporary state folder. Prints one table (name, n, p50/p95/max ms, target) and writes
``bench/receipts/core-<date>.json``.

What is measured:

- full rebuild (``Index.rebuild``), no-change stat walk (``Index.sync``), the vault walk alone;
- the freshness check a search pays with the watcher running (``Hoard.ensure_fresh``);
- ``Hoard.search`` over a mixed query set (known-item aliases, misspellings, single words,
  longer questions), per kind and overall, with the watcher running (as ``hoard serve``) and
  once without it (a stat walk at most once a second, as a long-lived process without
  inotify);
- beside it: a plain FTS5 ``MATCH`` with the words OR-ed on hoard's own index file through a
  separate connection, and two naive scans that re-read every note for each query;
- the peak RSS of a separate ``hoard search`` CLI process.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib import (
    REPO_ROOT,
    SampleStats,
    evaldata_dir,
    machine_info,
    now_iso,
    render_table,
    write_receipt,
)
from hoard.adapters.fs.config_file import load_config
from hoard.app.hoard import Hoard
from hoard.benchmark.inprocess import RAW_SQL, or_expression
from hoard.benchmark.queries import with_typo
from hoard.core.config import Config
from hoard.core.policy import OWNER

SEED = 20240611
WORD = re.compile(r"[^\W_]+")

# Hand-written longer queries for the Zettelkasten's topics (Programming, Math, Security,
# Philosophy, IT): the "natural question" shape that known-item aliases do not cover.
MULTI_WORD = (
    "how does a buffer overflow overwrite the return address",
    "difference between tcp and udp",
    "eigenvalues of a symmetric matrix",
    "free will and determinism",
    "reverse shell with netcat",
    "binary search tree insertion and deletion",
    "proof by induction on natural numbers",
    "sql injection in a login form",
    "virtual memory page table translation",
    "utilitarianism versus deontology ethics",
    "fourier transform of a gaussian",
    "public key cryptography rsa key exchange",
)


# -- measurement ----------------------------------------------------------------------------


@dataclass(slots=True)
class Row(SampleStats):
    name: str
    samples_ms: list[float]
    target: str = ""
    passed: bool | None = None
    note: str = ""
    unit: str = "ms"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": len(self.samples_ms),
            "unit": self.unit,
            "p50": round(self.p50, 4),
            "p95": round(self.p95, 4),
            "max": round(self.max, 4),
            "mean": round(sum(self.samples_ms) / len(self.samples_ms), 4)
            if self.samples_ms
            else None,
            "target": self.target or None,
            "pass": self.passed,
            "note": self.note or None,
        }


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def check(row: Row, stat: str, limit: float) -> Row:
    """Mark a row against ``stat < limit`` (``stat`` is ``p50``, ``p95`` or ``max``)."""
    value = {"p50": row.p50, "p95": row.p95, "max": row.max}[stat]
    row.target = f"{stat} < {limit:g} {row.unit}"
    row.passed = value < limit
    return row


# -- the query set --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BenchQuery:
    text: str
    kind: str


def load_known_item(path: Path) -> list[str]:
    import json

    out: list[str] = []
    if not path.is_file():
        return out
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(str(json.loads(line)["query"]))
    return out


def vocabulary_words(notes: Sequence[Path], rng: random.Random, n: int) -> list[str]:
    """Single words of 5+ letters drawn from note titles (file stems)."""
    pool = sorted(
        {w.lower() for p in notes for w in WORD.findall(p.stem) if len(w) >= 5 and w.isalpha()}
    )
    return rng.sample(pool, min(n, len(pool)))


def build_queries(
    known: list[str], notes: Sequence[Path], n_known: int, rng: random.Random
) -> list[BenchQuery]:
    sample = rng.sample(known, min(n_known, len(known))) if known else []
    out = [BenchQuery(q, "known-item") for q in sample]
    typo_sources = [q for q in (known or [p.stem for p in notes]) if with_typo(q, random.Random(0))]
    rng.shuffle(typo_sources)
    typos: list[str] = []
    for q in typo_sources:
        t = with_typo(q, rng)
        if t and t != q:
            typos.append(t)
        if len(typos) >= 50:
            break
    out += [BenchQuery(t, "misspelled") for t in typos]
    out += [BenchQuery(w, "single-word") for w in vocabulary_words(notes, rng, 25)]
    multi = [q for q in known if len(q.split()) >= 3 and q not in sample]
    out += [BenchQuery(q, "multi-word") for q in rng.sample(multi, min(13, len(multi)))]
    out += [BenchQuery(q, "multi-word") for q in MULTI_WORD]
    return out


# -- baselines ------------------------------------------------------------------------------


def md_files(root: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if f.lower().endswith(".md") and not f.startswith("."):
                yield Path(dirpath) / f


def naive_substring(root: Path, query: str) -> list[str]:
    needle = query.lower()
    hits: list[str] = []
    for p in md_files(root):
        text = p.read_text(encoding="utf-8", errors="replace")
        if needle in text.lower():
            hits.append(str(p))
    return hits[:10]


def naive_any_word(root: Path, query: str) -> list[str]:
    words = [w.lower() for w in WORD.findall(query)]
    scored: list[tuple[int, str]] = []
    for p in md_files(root):
        low = p.read_text(encoding="utf-8", errors="replace").lower()
        n = sum(1 for w in words if w in low)
        if n:
            scored.append((-n, str(p)))
    scored.sort()
    return [p for _, p in scored[:10]]


def time_scan(
    scan: Callable[[Path, str], list[str]], root: Path, queries: Sequence[str]
) -> list[float]:
    out: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        scan(root, q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


# -- CLI memory -----------------------------------------------------------------------------


def cli_search_rss(
    vault: Path, state: Path, queries: Sequence[str]
) -> tuple[list[float], list[float], str, list[str]]:
    """Peak RSS (MB) and wall time (ms) of ``hoard search`` processes, the method used, and
    any errors."""
    exe = Path(sys.executable).with_name("hoard")
    cmd0 = [str(exe)] if exe.exists() else [sys.executable, "-m", "hoard.surfaces.cli.main"]
    gnu_time = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    rss: list[float] = []
    wall: list[float] = []
    errors: list[str] = []
    method = "/usr/bin/time -v" if gnu_time else "getrusage(RUSAGE_CHILDREN)"
    for q in queries:
        cmd = [*cmd0, "search", q, "--vault", str(vault), "--state-dir", str(state)]
        t0 = time.perf_counter()
        if gnu_time:
            proc = subprocess.run(
                [gnu_time, "-v", *cmd], capture_output=True, text=True, check=False
            )
            wall.append((time.perf_counter() - t0) * 1000)
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
            if m:
                rss.append(int(m.group(1)) / 1024)
            else:
                errors.append(f"no RSS in /usr/bin/time output for {q!r}")
        else:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            wall.append((time.perf_counter() - t0) * 1000)
            # ru_maxrss of children is the largest child so far (KiB on Linux).
            rss.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
        if proc.returncode != 0:
            errors.append(f"hoard search {q!r} exited {proc.returncode}: {proc.stderr[-300:]}")
    return rss, wall, method, errors


# -- main -----------------------------------------------------------------------------------


def fmt_ms(x: float) -> str:
    if x != x:  # NaN
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def table(rows: Sequence[Row]) -> str:
    headers = ["name", "n", "p50 ms", "p95 ms", "max ms", "target", "result"]
    body = []
    for r in rows:
        unit = "" if r.unit == "ms" else f" {r.unit}"
        body.append(
            [
                r.name,
                str(len(r.samples_ms)),
                fmt_ms(r.p50) + unit,
                fmt_ms(r.p95) + unit,
                fmt_ms(r.max) + unit,
                r.target,
                "" if r.passed is None else ("pass" if r.passed else "FAIL"),
            ]
        )
    return render_table(headers, body)


def main(argv: Sequence[str] | None = None) -> int:
    zk = evaldata_dir() / "zk-digitalyoshixi"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, default=zk / "notes", help="the vault to measure")
    ap.add_argument(
        "--queries", type=int, default=200, help="known-item queries to sample (default 200)"
    )
    ap.add_argument(
        "--known-item",
        type=Path,
        default=zk / "queries-known-item.jsonl",
        help="known-item query file to sample from",
    )
    ap.add_argument("--passes", type=int, default=3, help="timed passes over the query set")
    ap.add_argument("--scan-queries", type=int, default=10, help="queries for the naive scans")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--receipt", type=Path, default=None, help="where to write the receipt")
    args = ap.parse_args(argv)
    vault: Path = args.vault.resolve()
    if not vault.is_dir():
        print(f"core_bench: no vault at {vault} (set HOARD_EVALDATA?)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    config: Config = load_config(vault)
    rows: list[Row] = []
    extra: dict[str, Any] = {}

    def log(msg: str) -> None:
        print(f"… {msg}", file=sys.stderr, flush=True)

    started = now_iso()
    with tempfile.TemporaryDirectory(prefix="hoard-bench-") as tmp:
        state = Path(tmp) / "state"

        # -- indexing -------------------------------------------------------------------------
        log("first build")
        t0 = time.perf_counter()
        hoard = Hoard(vault, state, config=config)
        first_build = (time.perf_counter() - t0) * 1000
        notes = list(hoard.vault.walk())
        corpus = {
            "vault": str(vault),
            "notes": len(notes),
            "mb": round(sum(n.size for n in notes) / 1e6, 2),
            "indexed": hoard.index.note_count(),
            "failed": hoard.startup_report.failed,
        }
        rows.append(Row("startup, empty state (build)", [first_build]))

        log("rebuild x3")
        rows.append(check(Row("full rebuild", timed(hoard.index.rebuild, 3)), "p50", 6000))
        corpus["index_mb"] = round(hoard.index.path.stat().st_size / 1e6, 2)

        log("no-change sync x50")
        hoard.index.sync()
        syncs: list[float] = []
        changed = 0
        for _ in range(50):
            t0 = time.perf_counter()
            rep = hoard.index.sync()
            syncs.append((time.perf_counter() - t0) * 1000)
            changed += rep.changed
        rows.append(check(Row("stat walk / no-change sync", syncs), "p50", 60))
        if changed:
            rows[-1].note = f"{changed} notes changed during the no-change runs"

        log("vault walk x50")
        rows.append(Row("vault walk alone (listed)", timed(lambda: list(hoard.vault.walk()), 50)))
        hoard.close()

        # -- with the watcher -----------------------------------------------------------------
        log("startup with existing index + watcher")
        t0 = time.perf_counter()
        hw = Hoard(vault, state, config=config, watch=True)
        rows.append(
            Row(
                "startup, existing index + watcher",
                [(time.perf_counter() - t0) * 1000],
                note="quick_check + FTS5 integrity-check + stat walk + watcher start",
            )
        )
        try:
            running = hw.watcher is not None and hw.watcher.running
            extra["watcher_running"] = running
            fresh = Row("freshness check (watcher on)", timed(hw.keeper.ensure_fresh, 1000))
            if not running:
                fresh.note = "watcher NOT running: this is the stat-walk path"
            rows.append(check(fresh, "p50", 1))

            known = load_known_item(args.known_item)
            paths = [vault / n.path for n in notes]
            queries = build_queries(known, paths, args.queries, rng)
            extra["query_set"] = {
                k: sum(1 for q in queries if q.kind == k)
                for k in dict.fromkeys(q.kind for q in queries)
            }
            extra["query_examples"] = {
                k: [q.text for q in queries if q.kind == k][:5] for k in extra["query_set"]
            }

            log("first search (cold)")
            t0 = time.perf_counter()
            hw.searching.search("zettelkasten", caller=OWNER)
            rows.append(
                Row(
                    "first search (cold: vocabulary)",
                    [(time.perf_counter() - t0) * 1000],
                )
            )
            t0 = time.perf_counter()
            hw.searching.search("zettelkastn", caller=OWNER)
            rows.append(
                Row("first typo search (loads vocabulary)", [(time.perf_counter() - t0) * 1000])
            )

            log(f"search: {len(queries)} queries x {args.passes} passes")
            per_kind: dict[str, list[float]] = {}
            all_ms: list[float] = []
            errors: list[str] = []
            engines: dict[str, int] = {}
            slowest: list[tuple[float, str, str]] = []
            for _ in range(args.passes):
                for q in queries:
                    t0 = time.perf_counter()
                    try:
                        res = hw.searching.search(q.text, limit=10, caller=OWNER)
                    except Exception as exc:
                        errors.append(f"{q.text!r}: {type(exc).__name__}: {exc}")
                        continue
                    ms = (time.perf_counter() - t0) * 1000
                    engines[res.engine] = engines.get(res.engine, 0) + 1
                    if res.error:
                        errors.append(f"{q.text!r}: {res.error}")
                    all_ms.append(ms)
                    per_kind.setdefault(q.kind, []).append(ms)
                    slowest.append((ms, q.kind, q.text))
            slowest.sort(reverse=True)
            extra["search_engines"] = engines
            extra["search_errors"] = errors
            extra["slowest_searches"] = [
                {"ms": round(ms, 2), "kind": k, "query": t} for ms, k, t in slowest[:15]
            ]
            search_row = Row("search, all (watcher on)", all_ms)
            check(search_row, "p50", 5)
            p95_ok = search_row.p95 < 20
            search_row.target = "p50 < 5, p95 < 20 ms"
            search_row.passed = bool(search_row.passed) and p95_ok
            rows.append(search_row)
            for kind, ms_list in per_kind.items():
                rows.append(Row(f"  search: {kind}", ms_list))

            log("raw FTS5 OR query (separate connection)")
            raw = sqlite3.connect(f"file:{hw.index.path}?mode=ro", uri=True)
            raw_ms: list[float] = []
            raw_kind: dict[str, list[float]] = {}
            raw_errors: list[str] = []
            for _ in range(args.passes):
                for q in queries:
                    expr = or_expression(q.text)
                    if not expr:
                        continue
                    t0 = time.perf_counter()
                    try:
                        raw.execute(RAW_SQL, (expr,)).fetchall()
                    except sqlite3.Error as exc:
                        raw_errors.append(f"{q.text!r}: {exc}")
                        continue
                    ms = (time.perf_counter() - t0) * 1000
                    raw_ms.append(ms)
                    raw_kind.setdefault(q.kind, []).append(ms)
            raw.close()
            extra["raw_fts_errors"] = raw_errors
            rows.append(Row("raw FTS5 MATCH, words OR-ed", raw_ms, note="same query set"))
            for kind, ms_list in raw_kind.items():
                rows.append(Row(f"  raw FTS5: {kind}", ms_list))
        finally:
            hw.close()

        log("search without the watcher")
        hn = Hoard(vault, state, config=config)
        try:
            hn.searching.search("zettelkastn", caller=OWNER)
            nw_ms: list[float] = []
            for q in queries:
                t0 = time.perf_counter()
                hn.searching.search(q.text, limit=10, caller=OWNER)
                nw_ms.append((time.perf_counter() - t0) * 1000)
            rows.append(
                Row(
                    "search, no watcher (stat walk <= 1/s)",
                    nw_ms,
                    note="one pass; includes the periodic stat walk",
                )
            )
        finally:
            hn.close()

        # -- naive baselines ------------------------------------------------------------------
        scan_pool = [q.text for q in queries if q.kind in ("known-item", "multi-word")]
        scan_queries = rng.sample(scan_pool, min(args.scan_queries, len(scan_pool)))
        extra["scan_queries"] = scan_queries
        log(f"naive substring scan x{len(scan_queries)}")
        rows.append(
            Row(
                "naive substring scan (re-read all)",
                time_scan(naive_substring, vault, scan_queries),
            )
        )
        log(f"naive any-word count x{len(scan_queries)}")
        rows.append(
            Row(
                "naive any-word count (re-read all)",
                time_scan(naive_any_word, vault, scan_queries),
            )
        )

        # -- CLI memory -----------------------------------------------------------------------
        log("CLI search RSS")
        cli_queries = ["linear algebra", "buffer overflow", "zettelkastn"]
        rss, wall, method, cli_errors = cli_search_rss(vault, state, cli_queries)
        extra["cli"] = {"method": method, "queries": cli_queries, "errors": cli_errors}
        rows.append(check(Row("CLI `hoard search` peak RSS", rss, unit="MB"), "max", 150))
        rows.append(Row("CLI `hoard search` wall time", wall))

    print(f"\n## Core bench: {corpus['notes']} notes, {corpus['mb']} MB ({vault})\n")
    print(table(rows))
    notes_rows = [r for r in rows if r.note]
    if notes_rows:
        print()
        for r in notes_rows:
            print(f"- {r.name.strip()}: {r.note}")
    print(f"\nquery set: {extra['query_set']}")
    for key in ("search_errors", "raw_fts_errors"):
        if extra.get(key):
            print(f"! {key}: {len(extra[key])}, e.g. {extra[key][:3]}")
    if extra["cli"]["errors"]:
        print(f"! cli errors: {extra['cli']['errors']}")
    print("slowest searches:")
    for s in extra["slowest_searches"][:8]:
        print(f"  {s['ms']:8.2f} ms  {s['kind']:12s} {s['query']!r}")

    payload = {
        "kind": "core",
        "started": started,
        "argv": list(sys.argv if argv is None else argv),
        "machine": machine_info(),
        "repo": str(REPO_ROOT),
        "corpus": corpus,
        "rows": [r.as_dict() for r in rows],
        **extra,
    }
    out = write_receipt("core", payload, args.receipt)
    print(f"\nreceipt: {out}")
    failed = [r for r in rows if r.passed is False]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
