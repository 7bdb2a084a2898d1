"""Known-item quality in many languages: the tldr inner-word set, per language.

    python bench/quality_tldr.py [--langs zh,ja,...] [--label NAME] [--sea-n 3] [--baselines]

``../shared/evaldata/tldr/queries-inner-word.jsonl`` holds 1,209 queries, each a word cut
from the middle of a tldr page's description (zh, zh_TW, ja, ko, th, en, de, es; the set's
README says how it was built). Each language's folder (``pages.zh/``, English ``pages/``) is
indexed alone, as its own vault, from the tarball extracted once into
``.state/quality/tldr``; every query runs through ``Hoard.search`` (natural mode, limit 10,
lexical only) and scores MRR@10 and success@10.

``--baselines`` also scores small in-memory FTS5 tables over the same pages (title = the
file name, body = the whole page, weights 4 and 1, every query chunk quoted and OR-ed):
plain ``unicode61`` and plain ``porter unicode61`` BM25, the bars hoard must not fall
under, and, when PyICU is importable, ICU's dictionary word break for Thai (text and query
cut into words before indexing). ``--sea-n`` changes the n-gram size of Thai, Lao, Khmer
and Burmese runs for the run (the measurement behind its default). Prints a table and
writes ``bench/receipts/quality-tldr-<label>-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchlib import evaldata_dir, machine_info, now_iso, render_table, write_receipt
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER

try:
    import hoard.core.segment as segment
except ImportError:  # the code before segmentation, measured for "before"
    segment = None  # type: ignore[assignment]

LANGS = ("zh", "zh_TW", "ja", "ko", "th", "en", "de", "es")
K = 10
CACHE = Path(".state/quality/tldr")
TARGET_SUCCESS = 0.95
SEGMENTED = frozenset({"zh", "zh_TW", "ja", "ko", "th"})


def folder_of(lang: str) -> str:
    return "pages" if lang == "en" else f"pages.{lang}"


def extracted() -> Path:
    """The tarball's pages, extracted once (about 40,000 small files)."""
    done = CACHE / ".done"
    if not done.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tarfile.open(evaldata_dir() / "tldr" / "tldr-pages.tar.gz") as tar:
            tar.extractall(CACHE, filter="data")
        done.write_text("ok")
    roots = [p for p in CACHE.iterdir() if p.is_dir()]
    inner = [r for r in roots if (r / "pages").is_dir()]
    return inner[0] if inner else CACHE


def load(lang: str) -> list[dict[str, Any]]:
    path = evaldata_dir() / "tldr" / "queries-inner-word.jsonl"
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [r for r in rows if r["lang"] == lang]


def score(ranked: Sequence[str], relevant: dict[str, int]) -> tuple[float, float]:
    for i, p in enumerate(ranked[:K]):
        if relevant.get(p, 0) > 0:
            return 1.0 / (i + 1), 1.0
    return 0.0, 0.0


def hoard_run(root: Path, lang: str, queries: list[dict[str, Any]]) -> dict[str, Any]:
    folder = root / folder_of(lang)
    with tempfile.TemporaryDirectory(prefix="hoard-tldr-") as tmp:
        t0 = time.perf_counter()
        h = Hoard(folder, Path(tmp) / "state")
        try:
            build_s = time.perf_counter() - t0
            size = (Path(tmp) / "state" / "index.db").stat().st_size
            rr = ok = 0.0
            t1 = time.perf_counter()
            for q in queries:
                res = h.searching.search(q["query"], limit=K, caller=OWNER)
                ranked = [f"{folder_of(lang)}/{x.path}" for x in res.results]
                a, b = score(ranked, q["relevant"])
                rr, ok = rr + a, ok + b
            query_ms = (time.perf_counter() - t1) * 1000 / max(1, len(queries))
        finally:
            h.close()
    n = max(1, len(queries))
    return {"mrr": rr / n, "s10": ok / n, "build_s": build_s, "db_bytes": size, "ms": query_ms}


Cut = Callable[[str], str]


def baseline(
    root: Path, lang: str, queries: list[dict[str, Any]], tokenizer: str, cut: Cut | None = None
) -> dict[str, Any]:
    """A plain FTS5 table over the language's pages; ``cut`` pre-segments text and queries."""
    same: Cut = cut or (lambda s: s)
    conn = sqlite3.connect(":memory:")
    conn.execute(
        f"CREATE VIRTUAL TABLE t USING fts5(path UNINDEXED, title, body, tokenize='{tokenizer}')"
    )
    folder = root / folder_of(lang)
    for p in folder.rglob("*.md"):
        rel = f"{folder_of(lang)}/{p.relative_to(folder).as_posix()}"
        conn.execute("INSERT INTO t VALUES(?,?,?)", (rel, same(p.stem), same(p.read_text("utf-8"))))
    rr = ok = 0.0
    for q in queries:
        chunks = [c for c in same(q["query"]).split() if c]
        expr = " OR ".join('"' + c.replace('"', '""') + '"' for c in chunks)
        try:
            ranked = [
                r[0]
                for r in conn.execute(
                    "SELECT path FROM t WHERE t MATCH ? ORDER BY bm25(t, 4.0, 1.0) LIMIT ?",
                    (expr, K),
                )
            ]
        except sqlite3.OperationalError:
            ranked = []
        a, b = score(ranked, q["relevant"])
        rr, ok = rr + a, ok + b
    n = max(1, len(queries))
    return {"mrr": rr / n, "s10": ok / n}


def icu_cut() -> Cut | None:
    """ICU's dictionary word break as a pre-segmenter, when PyICU is importable."""
    try:
        import icu  # type: ignore[import-not-found]
    except ImportError:
        return None
    brk = icu.BreakIterator.createWordInstance(icu.Locale("th"))

    def cut(text: str) -> str:
        brk.setText(text)
        out, start = [], 0
        for end in brk:
            out.append(text[start:end])
            start = end
        return " ".join(out)

    return cut


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--label", default="current")
    ap.add_argument("--sea-n", type=int, default=0, help="n-gram size of Thai-family runs")
    ap.add_argument("--baselines", action="store_true")
    args = ap.parse_args(argv)
    if args.sea_n and segment is not None:
        segment.SEA_N = args.sea_n
    root = extracted()
    rows: list[list[str]] = []
    out: dict[str, Any] = {}
    for lang in args.langs.split(","):
        qs = load(lang)
        r: dict[str, Any] = {"n": len(qs), "hoard": hoard_run(root, lang, qs)}
        if args.baselines:
            r["unicode61"] = baseline(root, lang, qs, "unicode61 remove_diacritics 2")
            r["porter"] = baseline(root, lang, qs, "porter unicode61 remove_diacritics 2")
            cut = icu_cut() if lang == "th" else None
            if cut is not None:
                r["icu"] = baseline(root, lang, qs, "unicode61 remove_diacritics 2", cut)
        out[lang] = r
        cells = [lang, str(len(qs))]
        for key in ("hoard", "unicode61", "porter", "icu"):
            v = r.get(key)
            cells.append(f"{v['mrr']:.3f} / {v['s10']:.3f}" if v else "")
        h = r["hoard"]
        cells += [f"{h['build_s']:.1f}", f"{h['db_bytes'] / 1e6:.1f}", f"{h['ms']:.2f}"]
        rows.append(cells)
        print(" | ".join(cells), file=sys.stderr, flush=True)
    head = ["lang", "n", f"hoard ({args.label})", "unicode61", "porter", "icu (th)"]
    print(render_table([*head, "build s", "index MB", "ms/query"], rows))
    misses = [
        lang
        for lang, r in out.items()
        if (lang in SEGMENTED and r["hoard"]["s10"] < TARGET_SUCCESS)
        or ("unicode61" in r and r["hoard"]["s10"] < r["unicode61"]["s10"])
    ]
    print("targets met" if not misses else f"targets missed: {', '.join(misses)}")
    write_receipt(
        f"quality-tldr-{args.label}",
        {"when": now_iso(), "machine": machine_info(), "sea_n": args.sea_n, "langs": out},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
