"""What hoard is measured against on the same corpus: re-reading every note for each query
(a substring scan, and a count of the query words each note contains, top 10), and
``grep -rilF`` over the vault."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from hoard.benchmark.queries import WORD
from hoard.benchmark.rows import Row

Scan = Callable[[str], object]
BUDGET_S = 20.0  # per baseline row: stop adding samples after this (at least MIN_RUNS)
MIN_RUNS = 3


def naive_substring(notes: Sequence[Path], query: str) -> list[Path]:
    needle = query.lower()
    hits: list[Path] = []
    for p in notes:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if needle in text.lower():
            hits.append(p)
    return hits[:10]


def naive_any_word(notes: Sequence[Path], query: str) -> list[Path]:
    words = [w.lower() for w in WORD.findall(query)]
    scored: list[tuple[int, str, Path]] = []
    for p in notes:
        try:
            low = p.read_text(encoding="utf-8", errors="replace").lower()
        except OSError:
            continue
        n = sum(1 for w in words if w in low)
        if n:
            scored.append((-n, str(p), p))
    scored.sort()
    return [p for _, _, p in scored[:10]]


def grep_files(root: Path, query: str, grep: str) -> list[str]:
    """``grep -rilF`` for the query over the vault's ``.md`` files (exit 1: no match)."""
    proc = subprocess.run(
        [grep, "-r", "-i", "-l", "-F", "--include=*.md", "-e", query, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode > 1:
        raise OSError(f"grep exited {proc.returncode}: {proc.stderr.strip()[:200]}")
    return proc.stdout.splitlines()[:10]


def timed_scans(row: Row, scan: Scan, queries: Sequence[str], runs: int) -> Row:
    """Up to ``runs`` timed scans, one query each; stops after :data:`BUDGET_S` seconds
    once :data:`MIN_RUNS` are in."""
    started = time.perf_counter()
    for i in range(runs):
        if i >= MIN_RUNS and time.perf_counter() - started > BUDGET_S:
            row.note = f"stopped after {i} runs ({BUDGET_S:g} s budget)"
            break
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        try:
            scan(q)
        except OSError as exc:
            row.error(f"{q!r}: {exc}")
            continue
        row.add((time.perf_counter() - t0) * 1000, q[:100])
    return row


def measure(
    root: Path, notes: Sequence[Path], queries: Sequence[str], runs: int, say: Callable[[str], None]
) -> list[Row]:
    """The three baselines, ``runs`` queries each (fewer on a big corpus)."""
    rows: list[Row] = []
    say(f"naive substring scan of every note: up to {runs} queries")
    rows.append(
        timed_scans(
            Row("naive_substring", "naive substring scan (re-read every note)", "baseline"),
            lambda q: naive_substring(notes, q),
            queries,
            runs,
        )
    )
    say(f"naive any-word count over every note: up to {runs} queries")
    rows.append(
        timed_scans(
            Row("naive_any_word", "naive any-word count (re-read every note)", "baseline"),
            lambda q: naive_any_word(notes, q),
            queries,
            runs,
        )
    )
    grep = shutil.which("grep")
    row = Row("grep", "grep -rilF over the vault (one process a query)", "baseline")
    if grep is None:
        row.skipped = "no grep on PATH"
        rows.append(row)
        return rows
    say(f"grep -rilF: up to {runs} queries")
    rows.append(timed_scans(row, lambda q: grep_files(root, q, grep), queries, runs))
    return rows
