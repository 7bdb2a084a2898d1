"""Attachments' cost: extraction throughput, the index build with and without attachments,
and search latency with and without them, on a generated vault with 200 generated PDFs.

    python bench/attachments.py [--notes 2000] [--pdfs 200] [--queries 300] [--receipt FILE]

The vault (``--notes`` notes from :mod:`hoard.benchmark.genvault`) and the PDFs are made in
a temporary folder, removed after. The PDFs are real-world-sized: 4 to 40 pages each
(seeded), about 2,500 characters of words a page, drawn from the notes' own vocabulary, made
with fpdf2 (a dev dependency). Then, each from an empty state folder:

1. **without attachments**: ``[attachments] enabled = false``; open (the index build) and
   ``hoard index``;
2. **with attachments**: the same, attachments on: the index build plus every PDF read in
   the extraction pool (pages/s = pages extracted / the attachments' wall time);
3. **cached**: ``index.db`` deleted, ``attachments.db`` kept: the rebuild hashes the PDFs
   and reads none again.

Search: ``--queries`` natural queries (two words of a note's title), run in turns on the
hoard without attachments, the hoard with them, and the same hoard with the attachment side
unbounded (every group's pages ranked on every query, as before the page plan of
:mod:`hoard.adapters.attachments.plan`; one of each per query in rotating order, so load
shifts all alike): p50/p95 of each. The machine may be shared: the receipt keeps the load average
before and after, and the figures move with it. Prints a table; the receipt goes to a
temporary folder unless ``--receipt`` names a file (``bench/receipts/attachments-<date>.json``
for the record).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from fpdf import FPDF

from benchlib import machine_info, now_iso, percentile, render_table, today, write_receipt
from hoard.adapters.attachments.indexer import Attachments
from hoard.adapters.attachments.store import PageHit
from hoard.app.hoard import Hoard
from hoard.benchmark.genvault import generate_vault
from hoard.core.config import AttachmentsConfig, Config
from hoard.core.policy import OWNER

SEED = 20261202
PAGE_CHARS = 2500
TEMP_RECEIPTS = Path(tempfile.gettempdir()) / "hoard-bench"


def vocabulary(vault: Path, limit: int = 5000) -> list[str]:
    words: dict[str, None] = {}
    for note in sorted(vault.rglob("*.md"))[:400]:
        for w in note.read_text("utf-8").split():
            if w.isalpha() and w.isascii() and 3 < len(w) < 14:  # fpdf2's core fonts: Latin-1
                words[w.lower()] = None
    return list(words)[:limit]


def make_pdfs(dest: Path, count: int, words: list[str]) -> int:
    """``count`` PDFs of 4 to 40 pages in ``dest``; the number of pages written. Lines are
    placed one by one (fpdf2's own line wrapping would take minutes for 200 files)."""
    rng = random.Random(SEED)
    dest.mkdir(parents=True)
    pages = 0
    for i in range(count):
        pdf = FPDF()
        pdf.set_font("helvetica", size=10)
        for _ in range(rng.randint(4, 40)):
            pdf.add_page()
            for n, line in enumerate(page_lines(rng, words)):
                pdf.text(15, 20 + 5 * n, line)
            pages += 1
        pdf.output(str(dest / f"paper-{i:03}.pdf"))
    return pages


def page_lines(rng: random.Random, words: list[str]) -> list[str]:
    """About :data:`PAGE_CHARS` characters of words in lines of at most 95."""
    lines: list[str] = []
    line: list[str] = []
    width = size = 0
    while size < PAGE_CHARS:
        w = rng.choice(words)
        if width + len(w) > 95:
            lines.append(" ".join(line))
            line, width = [], 0
        line.append(w)
        width += len(w) + 1
        size += len(w) + 1
    return [*lines, " ".join(line)]


def build(vault: Path, state: Path, enabled: bool) -> tuple[Hoard, dict[str, Any]]:
    config = Config(attachments=AttachmentsConfig(enabled=enabled))
    t0 = time.perf_counter()
    h = Hoard(vault, state, config)
    opened = time.perf_counter() - t0
    result = h.maintenance.reindex()
    total = time.perf_counter() - t0
    row: dict[str, Any] = {"open_s": round(opened, 3), "total_s": round(total, 3)}
    if result.attachments is not None:
        a = result.attachments
        seconds = a.elapsed_ms / 1000
        row |= {
            "attachments_s": round(seconds, 3),
            "files": a.files,
            "pages": a.pages,
            "extracted": a.extracted,
            "pages_per_s": round(a.pages / seconds, 1) if a.extracted and seconds else None,
            "problems": len(a.problems),
        }
    return h, row


def unbounded(attachments: Attachments) -> Any:
    """The attachment side before the page plan: the OR of every group, always ranked."""

    def search_groups(groups: list[list[str]], limit: int, folder: str | None, *_: Any) -> Any:
        expr = " OR ".join(g[0] if len(g) == 1 else "(" + " OR ".join(g) + ")" for g in groups)
        found: list[PageHit] = attachments.search(expr, limit, folder) if expr else []
        return found

    return search_groups


def search_times(plain: Hoard, attached: Hoard, queries: list[str]) -> dict[str, list[float]]:
    """Per query, in rotating order: without attachments, with them unbounded (as before),
    with them (the page plan)."""
    side = attached.deps.attachments
    assert side is not None
    old = unbounded(side)
    times: dict[str, list[float]] = {"without": [], "with_unbounded": [], "with": []}
    for i, q in enumerate(queries):
        order = ["without", "with_unbounded", "with"]
        for name in order[i % 3 :] + order[: i % 3]:
            if name == "with_unbounded":
                side.search_groups = old  # type: ignore[method-assign]
            t0 = time.perf_counter()
            (plain if name == "without" else attached).searching.search(q, caller=OWNER)
            times[name].append((time.perf_counter() - t0) * 1000)
            vars(side).pop("search_groups", None)
    return times


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--pdfs", type=int, default=200)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--receipt", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hoard-bench-attachments-") as tmp:
        return run(Path(tmp), args)


def run(tmp: Path, args: argparse.Namespace) -> int:
    args.load_before = os.getloadavg()
    vault = tmp / "vault"
    generate_vault(vault, args.notes, seed=SEED)
    t0 = time.perf_counter()
    written = make_pdfs(vault / "papers", args.pdfs, vocabulary(vault))
    print(f"made {args.pdfs} PDFs, {written} pages, in {time.perf_counter() - t0:.1f} s")
    plain, without = build(vault, tmp / "state-without", enabled=False)
    attached, with_ = build(vault, tmp / "state-with", enabled=True)
    attached.close()
    (tmp / "state-with" / "index.db").unlink()
    attached, cached = build(vault, tmp / "state-with", enabled=True)
    titles = [p.stem.replace("-", " ") for p in sorted(vault.rglob("*.md"))]
    rng = random.Random(SEED)
    queries = [" ".join(rng.choice(titles).split()[:2]) for _ in range(args.queries)]
    try:
        times = search_times(plain, attached, queries)
    finally:
        plain.close()
        attached.close()
    report(args, written, without, with_, cached, times)
    return 0


def report(
    args: argparse.Namespace,
    written: int,
    without: dict[str, Any],
    with_: dict[str, Any],
    cached: dict[str, Any],
    times: dict[str, list[float]],
) -> None:
    builds = [
        ("without attachments", without),
        ("with attachments", with_),
        ("with, texts cached", cached),
    ]
    rows = [
        [
            name,
            f"{r['total_s']:.2f}",
            f"{r.get('attachments_s', 0):.2f}",
            str(r.get("pages", 0)),
            str(r.get("extracted", 0)),
            str(r.get("pages_per_s") or "-"),
        ]
        for name, r in builds
    ]
    heads = ["index build", "total s", "attachments s", "pages", "read", "pages/s"]
    print(render_table(heads, rows))
    search = {
        k: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)} for k, v in times.items()
    }
    lines = [
        [k, str(len(times[k])), f"{v['p50_ms']:.2f}", f"{v['p95_ms']:.2f}"]
        for k, v in search.items()
    ]
    print(render_table(["search", "queries", "p50 ms", "p95 ms"], lines))
    base = search["without"]
    ratios = {
        k: {q: round(v[q] / base[q], 3) for q in ("p50_ms", "p95_ms")}
        for k, v in search.items()
        if k != "without"
    }
    print("against without attachments:", ratios)
    receipt = {
        "when": now_iso(),
        "machine": machine_info(),
        "notes": args.notes,
        "pdfs": args.pdfs,
        "pages": written,
        "build": {"without": without, "with": with_, "cached": cached},
        "search": search,
        "search_ratio_to_without": ratios,
        "load_before": list(args.load_before),
        "load_after": list(os.getloadavg()),
    }
    where = args.receipt or TEMP_RECEIPTS / f"attachments-{today()}.json"
    print(f"receipt: {write_receipt('attachments', receipt, where)}")


if __name__ == "__main__":
    raise SystemExit(main())
