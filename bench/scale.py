"""``hoard bench`` at several scales, and one table of how each figure grows.

    python bench/scale.py [--only gen-2.5k,zk,...] [--n 100] [--render-only]

Runs ``hoard bench`` (a separate process per corpus, so each run's memory is its own) on:
generated vaults of 2,500, 25,000 and 250,000 notes, the 13,415-note Zettelkasten and the
167,093-note CVE corpus of the shared evaluation data (``$HOARD_EVALDATA``, else
``../shared/evaldata``; read by path, never copied here: the CVE archive is unpacked into a
temporary folder that is removed afterwards). Each run writes
``bench/receipts/scale-<name>-<date>.json``. Then the newest receipt of each corpus becomes one
Markdown "scale curve" table (one row per corpus, by size), printed and written to
``bench/receipts/scale-curve-<date>.md``. ``--render-only`` skips the runs.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib import RECEIPTS_DIR, evaldata_dir, render_table, today

SEED = 20261130
Figures = dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Corpus:
    """One corpus of the curve: generated (``notes``), a vault folder or a ``.tar.gz`` of one
    (``path``, relative to the evaluation data)."""

    name: str
    notes: int = 0
    path: str = ""

    @property
    def generated(self) -> bool:
        return not self.path


CORPORA = (
    Corpus("gen-2.5k", notes=2_500),
    Corpus("zk", path="zk-digitalyoshixi/notes"),
    Corpus("gen-25k", notes=25_000),
    Corpus("cve", path="cve-trickest/cve-md.tar.gz"),
    Corpus("gen-250k", notes=250_000),
)
NAMES = tuple(c.name for c in CORPORA)


def say(msg: str) -> None:
    print(f"scale: {msg}", file=sys.stderr, flush=True)


def hoard_exe() -> list[str]:
    """``hoard`` next to this Python (the venv's), else ``python -m hoard.surfaces.cli.main``."""
    exe = Path(sys.executable).with_name("hoard")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "hoard.surfaces.cli.main"]


def vault_root(folder: Path) -> Path:
    """The folder of notes inside an unpacked archive: go down while the folder holds a
    single sub-folder and no Markdown file."""
    while True:
        entries = [e for e in folder.iterdir() if not e.name.startswith(".")]
        dirs = [e for e in entries if e.is_dir()]
        if len(dirs) == 1 and not any(e.suffix.lower() == ".md" for e in entries):
            folder = dirs[0]
        else:
            return folder


def unpack(archive: Path, dest: Path) -> None:
    tar = shutil.which("tar")
    if tar is not None:
        subprocess.run([tar, "-xzf", str(archive), "-C", str(dest)], check=True)
        return
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")


@contextmanager
def vault_of(corpus: Corpus, evaldata: Path) -> Iterator[Path | None]:
    """The vault to pass as ``--vault`` (None: generated); an archive is unpacked into a
    temporary folder for the duration."""
    if corpus.generated:
        yield None
        return
    source = evaldata / corpus.path
    if not source.exists():
        raise FileNotFoundError(f"{source} (set HOARD_EVALDATA?)")
    if source.is_dir():
        yield source
        return
    tmp = Path(tempfile.mkdtemp(prefix=f"hoard-scale-{corpus.name}-"))
    try:
        say(f"unpacking {source} into {tmp}")
        t0 = time.perf_counter()
        unpack(source, tmp)
        root = vault_root(tmp)
        say(f"unpacked in {time.perf_counter() - t0:.1f} s; vault {root}")
        yield root
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_one(corpus: Corpus, out: Path, n: int, evaldata: Path) -> int:
    """``hoard bench`` on one corpus, its table on this stdout; the exit status."""
    with vault_of(corpus, evaldata) as vault:
        cmd = [*hoard_exe(), "bench", "--n", str(n), "--seed", str(SEED), "--receipt", str(out)]
        cmd += ["--vault", str(vault)] if vault is not None else ["--notes", str(corpus.notes)]
        say(f"{corpus.name}: {' '.join(cmd)}")
        t0 = time.perf_counter()
        code = subprocess.run(cmd, check=False).returncode
        say(f"{corpus.name}: exit {code} after {time.perf_counter() - t0:.0f} s")
    return code


# -- the curve ------------------------------------------------------------------------------


def latest_receipts(folder: Path, names: Sequence[str]) -> dict[str, tuple[Path, dict[str, Any]]]:
    """The newest ``hoard bench`` receipt of each corpus (``scale-<name>-<date>.json``);
    older receipts of another kind are skipped."""
    found: dict[str, tuple[Path, dict[str, Any]]] = {}
    for name in names:
        for path in sorted(folder.glob(f"scale-{name}-????-??-??.json"), reverse=True):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("kind") == "hoard-bench":
                found[name] = (path, data)
                break
    return found


def num(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not math.isnan(x) else None


def fmt(x: Any, scale: float = 1.0) -> str:
    """A figure for a table cell: three significant digits or so; "-" when absent."""
    v = num(x)
    if v is None:
        return "-"
    v /= scale
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 0.1 else f"{v:.3f}"


def p(figures: Figures, key: str, stat: str = "p50_ms") -> Any:
    f = figures.get(key)
    return f.get(stat) if isinstance(f, dict) and f.get("n") else None


def times(a: Any, b: Any) -> str:
    x, y = num(a), num(b)
    if x is None or not y:
        return "-"
    return f"{x / y:.0f}x" if x / y >= 10 else f"{x / y:.1f}x"


HEADERS = (
    "corpus",
    "notes",
    "MD MB",
    "index MB",
    "rebuild s",
    "search p50",
    "search p95",
    "MCP floor p50",
    "read small p50",
    "links p50",
    "write p50",
    "list p50",
    "sync (watcher) p50",
    "stat walk p50",
    "server RSS peak MB",
    "naive scan p50 s",
    "grep p50 s",
    "scan / search",
    "grep / search",
)


def curve_row(name: str, r: dict[str, Any]) -> list[str]:
    corpus, figs = r["corpus"], r["figures"]
    rss = r.get("rss") or {}
    search = p(figs, "search") or p(figs, "raw_fts")
    return [
        name,
        f"{corpus['notes']:,}",
        fmt(corpus.get("mb")),
        fmt(corpus.get("index_mb")),
        fmt(p(figs, "rebuild"), 1000),
        fmt(p(figs, "search")),
        fmt(p(figs, "search", "p95_ms")),
        fmt(p(figs, "policy")),
        fmt(p(figs, "read_small")),
        fmt(p(figs, "links")),
        fmt(p(figs, "write_create")),
        fmt(p(figs, "list_500")),
        fmt(p(figs, "sync_nochange")),
        fmt(p(figs, "stat_walk")),
        fmt(rss.get("VmHWM_mb")),
        fmt(p(figs, "naive_substring"), 1000),
        fmt(p(figs, "grep"), 1000),
        times(p(figs, "naive_substring"), search),
        times(p(figs, "grep"), search),
    ]


def verdicts(name: str, r: dict[str, Any]) -> str:
    """One line: which targets a run met and which it missed (with the figure)."""
    met: list[str] = []
    missed: list[str] = []
    for key, f in r["figures"].items():
        if not f.get("target") or f.get("pass") is None:
            continue
        label = f"{key} ({f['target']})"
        (met if f["pass"] else missed).append(label)
        if not f["pass"]:
            stats = f"p50 {fmt(f.get('p50_ms'))} ms"
            if "p95" in f["target"]:
                stats += f", p95 {fmt(f.get('p95_ms'))} ms"
            missed[-1] = f"{key} {stats} ({f['target']})"
    rss = r.get("rss") or {}
    if rss.get("pass") is not None:
        label = f"server RSS peak {fmt(rss.get('VmHWM_mb'))} MB ({rss.get('target')})"
        (met if rss["pass"] else missed).append(label)
    notes = r["corpus"]["notes"]
    return (
        f"- {name} ({notes:,} notes): met: {', '.join(met) or 'none'}; "
        f"missed: {', '.join(missed) or 'none'}"
    )


def machine_line(receipts: Sequence[dict[str, Any]]) -> str:
    m = receipts[0].get("machine") or {}
    loads = [str(r.get("machine", {}).get("loadavg", ["?"])[0]) for r in receipts]
    v = receipts[0].get("versions") or {}
    return (
        f"Machine: {m.get('cpu_count', '?')}x {m.get('cpu', '?')}, "
        f"{round((m.get('mem_total_mb') or 0) / 1024)} GB RAM, Python {m.get('python', '?')}, "
        f"SQLite {m.get('sqlite', '?')}, hoard {v.get('hoard', '?')} "
        f"(source {v.get('src_sha256', '?')}), mcp {v.get('mcp', '?')}; "
        f"1-min load average at the end of each run: {', '.join(loads)}."
    )


def render_curve(found: dict[str, tuple[Path, dict[str, Any]]]) -> str:
    runs = sorted(found.items(), key=lambda kv: kv[1][1]["corpus"]["notes"])
    if not runs:
        return "no scale receipts found"
    rows = [curve_row(name, data) for name, (_, data) in runs]
    receipts = [data for _, (_, data) in runs]
    n = sorted({str(r["settings"]["n"]) for r in receipts})
    lines = [
        "## hoard scale curve",
        "",
        f"`hoard bench` per corpus (n = {'/'.join(n)} calls a phase; times in ms unless "
        "marked s; search, read, links, write, list and the MCP floor over loopback HTTP "
        "through the official MCP client; rebuild, sync and stat walk in process; scan and "
        "grep re-read every note for each query; the ratios are over the HTTP search p50).",
        "",
        render_table(HEADERS, rows),
        "",
        machine_line(receipts),
        "",
        "Receipts: " + ", ".join(f"`{path.name}`" for _, (path, _) in runs) + ".",
        "",
        "Targets:",
        "",
        *(verdicts(name, data) for name, (_, data) in runs),
        "",
        "Listed folders: "
        + "; ".join(
            f"{name} {f.get('path') or '/'} ({f.get('entries')} entries)"
            for name, (_, data) in runs
            for f in (data.get("inputs", {}).get("list_folders") or [])[:1]
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument(
        "--only", default="", help=f"comma-separated corpora (default all: {','.join(NAMES)})"
    )
    ap.add_argument("--n", type=int, default=100, help="timed calls per phase (default 100)")
    ap.add_argument(
        "--render-only", action="store_true", help="only re-render the curve from the receipts"
    )
    ap.add_argument(
        "--receipts", type=Path, default=RECEIPTS_DIR, help="receipt folder (bench/receipts)"
    )
    args = ap.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()] or list(NAMES)
    unknown = [s for s in chosen if s not in NAMES]
    if unknown:
        ap.error(f"unknown corpus {', '.join(unknown)} (known: {', '.join(NAMES)})")
    folder: Path = args.receipts
    failed: list[str] = []
    if not args.render_only:
        evaldata = evaldata_dir()
        for corpus in (c for c in CORPORA if c.name in chosen):
            out = folder / f"scale-{corpus.name}-{today()}.json"
            try:
                code = run_one(corpus, out, args.n, evaldata)
            except (OSError, subprocess.SubprocessError) as exc:
                say(f"{corpus.name}: {exc}")
                code = -1
            if code != 0:
                failed.append(f"{corpus.name} (exit {code})")
    text = render_curve(latest_receipts(folder, NAMES))
    print(text, end="")
    out_md = folder / f"scale-curve-{today()}.md"
    out_md.parent.mkdir(parents=True, exist_ok=True)
    out_md.write_text(text, encoding="utf-8")
    say(f"curve {out_md}")
    for f in failed:
        say(f"failed: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
