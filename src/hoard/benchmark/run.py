"""``hoard bench`` from start to receipt: prepare the corpus (a copy of the vault, or a
generated one), build the index and measure in process, start ``hoard serve --http`` on the
copy and measure every tool through the official MCP client, run the naive baselines, and
assemble the receipt. Nothing here asserts a time."""

from __future__ import annotations

import asyncio
import random
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hoard.adapters.fs.config_file import load_config
from hoard.benchmark import baselines, inprocess
from hoard.benchmark import queries as query_set
from hoard.benchmark.corpus import (
    SCRATCH,
    Inputs,
    copy_vault,
    fingerprint,
    generate,
    md_notes,
    pick_inputs,
    visible_to_callers,
)
from hoard.benchmark.mcp_phases import run_phases
from hoard.benchmark.report import machine_info, now_iso, versions
from hoard.benchmark.rows import RSS_TARGET_MB, Row, targets_for
from hoard.benchmark.server import (
    ServerProcess,
    free_port,
    make_token,
    proc_cpu_seconds,
    proc_status_mb,
)
from hoard.core.config import Config
from hoard.core.errors import InvalidArgument

Say = Callable[[str], None]
DEFAULT_NOTES = 2500
DEFAULT_SEED = 20261130
GROUP_ORDER = ("http", "api", "floor", "in-process", "baseline")
TRANSPORT = (
    "Streamable HTTP on 127.0.0.1, official mcp Client (streamable_http_client, bearer "
    "token), one session, sequential calls; server: hoard serve --http in its own process"
)


class Bar(Protocol):
    """A progress bar: called with (done, total), then finished."""

    def __call__(self, done: int, total: int) -> None: ...
    def finish(self) -> None: ...


class _NoBar:
    def __call__(self, done: int, total: int) -> None:
        return None

    def finish(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Options:
    vault: Path | None = None  # None: a generated vault
    notes: int = DEFAULT_NOTES
    seed: int = DEFAULT_SEED
    n: int = 100
    warmup: int | None = None  # None: n / 5, between 1 and 20
    http: bool = True
    queries: Path | None = None

    @property
    def warmup_calls(self) -> int:
        return self.warmup if self.warmup is not None else max(1, min(20, self.n // 5))


@contextmanager
def _terminable() -> Iterator[None]:
    """SIGTERM raises SystemExit (so the server is stopped and the copy removed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: object) -> None:
        sys.exit(143)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _http_rows(
    root: Path,
    tmp: Path,
    opts: Options,
    inputs: Inputs,
    queries: Sequence[query_set.Query],
    rerank: bool,
    targets: dict[str, list[tuple[str, float]]],
    say: Say,
) -> tuple[list[Row], dict[str, Any], dict[str, Any]]:

    tokens = tmp / "tokens.json"
    token = make_token(tokens)
    server = ServerProcess(root, tmp / "state", tokens, free_port(), tmp / "server.log")
    say(f"starting {' '.join(server.cmd)}")
    pid = server.start()
    info: dict[str, Any] = {"pid": pid, "cmd": server.cmd[1:]}
    try:
        info["ready_s"] = round(server.wait_healthy(), 2)
        say(f"/healthz answered after {info['ready_s']} s; waiting for the background checks")
        info["idle_wait_s"] = server.wait_idle()
        info["mem_after_start_mb"] = proc_status_mb(pid)
        rows, facts = asyncio.run(
            run_phases(
                server.base,
                token,
                pid,
                opts.n,
                opts.warmup_calls,
                inputs,
                queries,
                rerank,
                targets,
                say,
            )
        )
        if not server.alive():
            raise RuntimeError(f"the server died during the bench:\n{server.log_tail()}")
        info["mem_end_mb"] = proc_status_mb(pid)
        info["cpu_end_s"] = proc_cpu_seconds(pid)
    finally:
        info["exit_code"] = server.stop()
        info["log_tail"] = server.log_tail(2000)
    return rows, facts, info


def run_bench(
    opts: Options,
    say: Say | None = None,
    make_bar: Callable[[str], Bar] | None = None,
    argv: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Measure, and return the receipt. The vault named in ``opts`` is only read."""
    log: Say = say or (lambda _msg: None)
    bar_for: Callable[[str], Bar] = make_bar or (lambda _label: _NoBar())
    started, load_start = now_iso(), machine_info()["loadavg"]
    n, warmup = opts.n, opts.warmup_calls
    if n < 1 or warmup < 0:
        raise InvalidArgument("--n must be at least 1 and --warmup at least 0")
    source = opts.vault.resolve() if opts.vault is not None else None
    if source is not None and not source.is_dir():
        raise InvalidArgument(f"no vault at {source}")
    tmp = Path(tempfile.mkdtemp(prefix="hoard-bench-"))
    corpus: dict[str, Any] = {"source": str(source) if source else None, "generated": None}
    before: dict[str, Any] | None = None
    with _terminable():
        try:
            if source is not None:
                before = fingerprint(source)
                root = tmp / "vault"
                log(f"copying {source} to {root}")
                corpus["copy_s"] = round(copy_vault(source, root), 2)
                if (root / SCRATCH).exists():
                    raise InvalidArgument(f"the vault already has a {SCRATCH}/ folder")
            else:
                log(f"generating a vault of {opts.notes} notes (seed {opts.seed})")
                bar = bar_for("generating")
                try:
                    corpus["generated"] = generate(tmp / "vault", opts.notes, opts.seed, bar)
                finally:
                    bar.finish()
                root = Path(corpus["generated"]["root"])
            receipt = _measure(root, tmp, source, opts, corpus, log, bar_for)
            if source is not None and before is not None:
                receipt["source_vault_untouched"] = fingerprint(source) == before
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    receipt["started"] = started
    receipt["machine"]["loadavg_start"] = load_start  # "loadavg" is the load at the end
    receipt["finished"] = now_iso()
    receipt["argv"] = list(argv) if argv is not None else None
    return receipt


@dataclass(frozen=True, slots=True)
class _InProcess:
    """What the in-process part measured, and what it chose for the HTTP phases."""

    indexed: inprocess.Indexed
    queries: list[query_set.Query]
    query_origin: str
    inputs: Inputs


def _measure(
    root: Path,
    tmp: Path,
    source: Path | None,
    opts: Options,
    corpus: dict[str, Any],
    say: Say,
    bar_for: Callable[[str], Bar],
) -> dict[str, Any]:
    rng = random.Random(opts.seed)
    config = load_config(root)
    notes = md_notes(root)
    corpus["notes"] = len(notes)
    corpus["bytes"] = sum(p.stat().st_size for p in notes)
    corpus["mb"] = round(corpus["bytes"] / 1e6, 2)
    targets = targets_for(len(notes))

    local = _measure_in_process(root, tmp, source, opts, config, notes, rng, say, bar_for)
    for row in local.indexed.rows:
        row.targets = list(targets.get(row.key, []))
    facts = local.indexed.facts
    corpus["index_bytes"] = facts["index_bytes"]
    corpus["index_mb"] = round(facts["index_bytes"] / 1e6, 1)
    corpus["indexed_notes"] = facts["indexed_notes"]
    corpus["notes_with_links"] = facts["notes_with_links"]

    rows: list[Row] = list(local.indexed.rows)
    receipt: dict[str, Any] = {"server": None, "rss": None, "search": {}}
    if opts.http:
        http_rows, http_facts = _measure_http(root, tmp, opts, local, config, targets, say)
        rows += http_rows
        receipt.update(http_facts)

    queries = local.queries
    scan_texts = [q.text for q in queries if q.kind != "misspelled"] or [q.text for q in queries]
    runs = min(opts.n, max(3, min(10, opts.n // 10)))
    rows += baselines.measure(root, notes, scan_texts, runs, say)

    order = {g: i for i, g in enumerate(GROUP_ORDER)}
    rows.sort(key=lambda r: order.get(r.group, len(order)))  # stable: phase order kept
    receipt.update(_receipt_fields(opts, corpus, local, rows))
    return receipt


def _measure_in_process(
    root: Path,
    tmp: Path,
    source: Path | None,
    opts: Options,
    config: Config,
    notes: list[Path],
    rng: random.Random,
    say: Say,
    bar_for: Callable[[str], Bar],
) -> _InProcess:
    """Build the index and time the in-process rows, then choose the queries and the inputs
    of the HTTP phases (while the index is open)."""
    n, warmup = opts.n, opts.warmup_calls
    bar = bar_for("rebuilding")
    indexed, hoard = inprocess.measure(root, tmp / "state", n, warmup, bar, bar.finish, say)
    try:
        titles = [(p, t) for p, t in indexed.titles if visible_to_callers(p, config)]
        query_file = opts.queries
        if query_file is None and source is not None:
            query_file = query_set.find_query_file(source)
        queries, origin = query_set.build(root, titles, n + warmup, rng, query_file)
        say(f"raw FTS5 query: {warmup} warm-up + {n} timed")
        indexed.rows.append(inprocess.raw_fts(hoard.index.path, queries, n, warmup))
        inputs = pick_inputs(
            root, notes, indexed.linked, config, rng, n + warmup, config.limits.read_max_bytes
        )
    finally:
        hoard.close()
    return _InProcess(indexed, queries, origin, inputs)


def _measure_http(
    root: Path,
    tmp: Path,
    opts: Options,
    local: _InProcess,
    config: Config,
    targets: dict[str, list[tuple[str, float]]],
    say: Say,
) -> tuple[list[Row], dict[str, Any]]:
    """The rows measured over HTTP and the receipt's ``search``, ``server`` and ``rss``."""
    rows, facts, info = _http_rows(
        root, tmp, opts, local.inputs, local.queries, config.rerank.enabled, targets, say
    )
    mem = info.get("mem_end_mb") or {}
    peak = mem.get("VmHWM")
    rss = {
        "VmRSS_mb": mem.get("VmRSS"),
        "VmHWM_mb": peak,
        "target": f"peak < {RSS_TARGET_MB:g} MB",
        "pass": None if peak is None else peak < RSS_TARGET_MB,
    }
    return rows, {"search": facts, "server": info, "rss": rss}


def _receipt_fields(
    opts: Options, corpus: dict[str, Any], local: _InProcess, rows: list[Row]
) -> dict[str, Any]:
    return {
        "kind": "hoard-bench",
        "format": 1,
        "machine": machine_info(),
        "versions": versions(),
        "corpus": corpus,
        "settings": {
            "n": opts.n,
            "warmup": opts.warmup_calls,
            "seed": opts.seed,
            "http": opts.http,
            "queries": local.query_origin,
            "query_kinds": query_set.kinds(local.queries),
        },
        "transport": TRANSPORT if opts.http else None,
        "source_vault_untouched": None,
        "figures": {r.key: r.as_dict() for r in rows},
        "inputs": local.inputs.facts,
    }


def failures(receipt: dict[str, Any]) -> list[str]:
    """What makes a run unusable (not a missed target): errors, a changed source vault."""
    out = [
        f"{f['name']}: {f['errors']} errors" for f in receipt["figures"].values() if f.get("errors")
    ]
    if receipt.get("source_vault_untouched") is False:
        out.append("the source vault changed during the bench")
    return out
