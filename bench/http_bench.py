"""End-to-end latency of hoard's MCP tools over loopback Streamable HTTP, with the official
MCP client, against a real ``hoard serve --http`` process.

    python bench/http_bench.py [--vault PATH] [--n 200] [--warmup 20] [--receipt PATH]

Default vault: ``$HOARD_EVALDATA/zk-digitalyoshixi/notes`` (13k notes). The bench writes, so
the vault is COPIED to a temporary folder first and the server runs on the copy, with a
temporary state folder and tokens file; the source vault is never written (its stat
fingerprint is compared before and after). The server is a separate process (its own GIL);
its RSS comes from ``/proc/<pid>/status`` and its CPU time per phase from ``/proc/<pid>/stat``.

One MCP session (bearer token with read, write, confirm, maintenance; write mode direct);
each phase makes ``--warmup`` calls, then ``--n`` timed calls, and every result is checked
(``is_error`` and the expected shape): errors are counted, never silently timed. Phases:
read of a ~4 KB note and of a ~250 KB scratch note, search over sampled known-item queries,
links of notes that have wikilinks, list of the folder nearest 500 notes (and of the largest
folder), write dry run, real writes (create, then overwrite with ``expected_revision``),
archive, history by revision id, ``vault_policy`` (the MCP floor) and ``GET /healthz`` (the
HTTP floor). Prints one table and writes ``bench/receipts/http-<date>.json``; exit status 1
when a target is missed or a phase had errors.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import importlib.metadata
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client

from benchlib import (
    REPO_ROOT,
    SampleStats,
    evaldata_dir,
    git_head,
    machine_info,
    now_iso,
    proc_cpu_seconds,
    proc_status_mb,
    render_table,
    wait_for_load,
    write_receipt,
)
from mcp import Client

SEED = 20241130
SCRATCH = "bench-scratch"
LINK = re.compile(r"\[\[[^\]\n]+\]\]")
FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)

# Targets on the median (ms), by row key.
TARGETS_MS = {
    "read_small": 2.0,
    "search": 8.0,
    "links": 3.0,
    "write_dry": 3.0,
    "write_create": 5.0,
    "write_overwrite": 5.0,
    "archive": 10.0,
    "list_500": 30.0,
    "code_trivial": 15.0,
    "code_search": 40.0,
}
RSS_TARGET_MB = 500.0


def log(msg: str) -> None:
    print(f"… {msg}", file=sys.stderr, flush=True)


# -- rows -----------------------------------------------------------------------------------


@dataclass
class Row(SampleStats):
    key: str
    name: str
    samples_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    target_ms: float | None = None
    note: str = ""
    server_cpu_ms: float | None = None  # server process CPU over the timed calls
    client_cpu_ms: float | None = None  # this process's CPU over the timed calls
    wall_ms: float | None = None
    labels: list[str] = field(default_factory=list)  # what each timed call asked for

    def slowest(self, k: int = 5) -> list[dict[str, Any]]:
        pairs = sorted(zip(self.samples_ms, self.labels, strict=False), reverse=True)[:k]
        return [{"ms": round(ms, 2), "call": label} for ms, label in pairs]

    @property
    def passed(self) -> bool | None:
        if self.errors:
            return False
        if self.target_ms is None:
            return None
        return self.p50 < self.target_ms

    def error(self, msg: str) -> None:
        self.errors += 1
        if len(self.error_examples) < 5:
            self.error_examples.append(msg[:300])

    def per_call(self, total_ms: float | None) -> float | None:
        n = len(self.samples_ms)
        return None if total_ms is None or not n else total_ms / n

    def as_dict(self) -> dict[str, Any]:
        n = len(self.samples_ms)
        srv = self.per_call(self.server_cpu_ms)
        cli = self.per_call(self.client_cpu_ms)
        return {
            "key": self.key,
            "name": self.name,
            "n": n,
            "errors": self.errors,
            "error_examples": self.error_examples,
            "p50_ms": round(self.p50, 3),
            "p95_ms": round(self.p95, 3),
            "max_ms": round(self.max, 3),
            "mean_ms": round(sum(self.samples_ms) / n, 3) if n else None,
            "min_ms": round(min(self.samples_ms), 3) if n else None,
            "target": f"p50 < {self.target_ms:g} ms" if self.target_ms is not None else None,
            "pass": self.passed,
            "server_cpu_ms_per_call": round(srv, 3) if srv is not None else None,
            "client_cpu_ms_per_call": round(cli, 3) if cli is not None else None,
            "note": self.note or None,
            "slowest": self.slowest(),
        }


def fmt_ms(x: float) -> str:
    if x != x:  # NaN
        return "-"
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def result_cell(passed: bool | None) -> str:
    return "" if passed is None else ("pass" if passed else "FAIL")


# -- the server process ---------------------------------------------------------------------


def hoard_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("hoard")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "hoard.cli"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``hoard serve --http`` in its own process; :meth:`stop` is safe to call twice."""

    def __init__(self, vault: Path, state: Path, tokens: Path, port: int, log_path: Path):
        self.cmd = [
            *hoard_cmd(),
            "serve",
            "--vault",
            str(vault),
            "--state-dir",
            str(state),
            "--tokens",
            str(tokens),
            "--http",
            f"127.0.0.1:{port}",
        ]
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> int:
        with self.log_path.open("wb") as out:
            self.proc = subprocess.Popen(
                self.cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
            )
        return self.proc.pid

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        return self.proc.returncode


def wait_healthy(base: str, server: ServerProcess, timeout_s: float = 600.0) -> float:
    """Seconds until ``/healthz`` answered 200."""
    t0 = time.monotonic()
    with httpx2.Client(timeout=2.0) as hc:
        while time.monotonic() - t0 < timeout_s:
            if not server.alive():
                raise RuntimeError(f"the server exited early:\n{server.log_tail()}")
            with contextlib.suppress(httpx2.HTTPError):
                if hc.get(f"{base}/healthz").status_code == 200:
                    return time.monotonic() - t0
            time.sleep(0.1)
    raise RuntimeError(f"no /healthz after {timeout_s:.0f} s:\n{server.log_tail()}")


def wait_idle(
    pid: int, window_s: float = 1.0, idle_cpu_s: float = 0.02, timeout_s: float = 120.0
) -> float:
    """Wait until the server spends under ``idle_cpu_s`` CPU in ``window_s`` (its background
    deep check and vocabulary warm-up are done). Returns the seconds waited."""
    t0 = time.monotonic()
    last = proc_cpu_seconds(pid)
    while time.monotonic() - t0 < timeout_s:
        time.sleep(window_s)
        now = proc_cpu_seconds(pid)
        if now is None or last is None:
            break
        if now - last < idle_cpu_s:
            break
        last = now
    return round(time.monotonic() - t0, 1)


# -- the vault copy and the inputs ---------------------------------------------------------


def fingerprint(root: Path) -> dict[str, Any]:
    """A stat fingerprint of a folder: files, bytes, newest mtime (ns)."""
    files = size = 0
    newest = 0
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            st = os.lstat(os.path.join(dirpath, f))
            files += 1
            size += st.st_size
            newest = max(newest, st.st_mtime_ns)
    return {"files": files, "bytes": size, "newest_mtime_ns": newest}


def md_notes(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if f.lower().endswith(".md") and not f.startswith("."):
                out.append(Path(dirpath) / f)
    return out


def folder_sizes(root: Path) -> dict[str, tuple[int, int]]:
    """Vault-relative folder → (notes directly in it, visible entries directly in it)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = Path(dirpath).relative_to(root).as_posix()
        if rel == ".":
            continue
        notes = sum(1 for f in filenames if f.lower().endswith(".md") and not f.startswith("."))
        entries = len(dirnames) + sum(1 for f in filenames if not f.startswith("."))
        out[rel] = (notes, entries)
    return out


def body_of(text: str) -> str:
    return FRONTMATTER.sub("", text, count=1)


def text_pool(notes: Sequence[Path], rng: random.Random, want_bytes: int) -> str:
    """Realistic ASCII prose: the bodies of random vault notes, concatenated."""
    parts: list[str] = []
    size = 0
    for p in rng.sample(list(notes), len(notes)):
        body = body_of(p.read_text(encoding="utf-8", errors="replace"))
        body = body.encode("ascii", "ignore").decode().strip()
        if len(body) < 200:
            continue
        parts.append(body)
        size += len(body) + 2
        if size >= want_bytes:
            break
    return "\n\n".join(parts)


def scratch_note(title: str, size: int, pool: str, start: int) -> str:
    """A valid note of exactly ``size`` bytes (ASCII): contract frontmatter, then prose from
    ``pool`` starting near ``start``, ending with exactly one newline."""
    head = (
        f"---\ntitle: {title}\ntype: scratch\nstatus: draft\n"
        "tags: [bench, scratch]\nupdated: 2026-11-30\n---\n"
    )
    need = size - len(head) - 1
    if need < 1:
        raise ValueError(f"a {size}-byte note cannot hold its frontmatter")
    start %= max(1, len(pool) - need)
    body = pool[start : start + need]
    while len(body) < need:
        body += " " + pool[: need - len(body) - 1]
    # No whitespace tail: the file must end with exactly one newline.
    body = body[: need - 1].replace("\r", " ") + "."
    return head + body + "\n"


def load_queries(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# -- the MCP phases -------------------------------------------------------------------------

Check = Callable[[int, Any], str | None]
ArgsFor = Callable[[int], dict[str, Any]]


def call_label(args: dict[str, Any]) -> str:
    """The arguments of a call, for the receipt's slowest calls (contents left out)."""
    shown = {k: v for k, v in args.items() if k != "content"}
    return json.dumps(shown, ensure_ascii=False)[:160]


def structured(result: Any) -> dict[str, Any] | None:
    data = getattr(result, "structured_content", None)
    return data if isinstance(data, dict) else None


def error_text(result: Any) -> str:
    try:
        return str(result.content[0].text)
    except (AttributeError, IndexError):
        return repr(result)[:300]


class Bench:
    def __init__(self, client: Client, server_pid: int, warmup: int, n: int) -> None:
        self.c = client
        self.pid = server_pid
        self.warmup = warmup
        self.n = n
        self.rows: list[Row] = []
        self.protocol = "2026-07-28"

    async def phase(
        self,
        key: str,
        name: str,
        tool: str,
        args_for: ArgsFor,
        check: Check | None = None,
        n: int | None = None,
        warmup: int | None = None,
    ) -> tuple[Row, list[dict[str, Any] | None]]:
        """``warmup`` calls (i = 0..warmup-1), then ``n`` timed calls (i = warmup..); every
        result is checked. Returns the row and the structured results of every call."""
        n = self.n if n is None else n
        warmup = self.warmup if warmup is None else warmup
        row = Row(key, name, target_ms=TARGETS_MS.get(key))
        outputs: list[dict[str, Any] | None] = []
        log(f"{name}: {warmup} warm-up + {n} timed")
        for i in range(warmup):
            res = await self.c.call_tool(tool, args_for(i))
            outputs.append(self._check(row, i, res, check, timed=False))
        srv0 = proc_cpu_seconds(self.pid)
        cli0 = time.process_time()
        wall0 = time.perf_counter()
        for i in range(warmup, warmup + n):
            args = args_for(i)
            t0 = time.perf_counter()
            res = await self.c.call_tool(tool, args)
            row.samples_ms.append((time.perf_counter() - t0) * 1000)
            row.labels.append(call_label(args))
            outputs.append(self._check(row, i, res, check, timed=True))
        row.wall_ms = (time.perf_counter() - wall0) * 1000
        row.client_cpu_ms = (time.process_time() - cli0) * 1000
        srv1 = proc_cpu_seconds(self.pid)
        if srv0 is not None and srv1 is not None:
            row.server_cpu_ms = (srv1 - srv0) * 1000
        self.rows.append(row)
        return row, outputs

    async def raw_phase(
        self,
        http: httpx2.AsyncClient,
        url: str,
        key: str,
        name: str,
        tool: str,
        args_for: ArgsFor,
    ) -> Row:
        """The same ``tools/call`` as the SDK client sends it (stateless Streamable HTTP:
        one POST, JSON response), posted with plain httpx2 and parsed with ``json.loads``:
        the server and HTTP share of a call, without the MCP client library."""
        row = Row(key, name)
        log(f"{name}: {self.warmup} warm-up + {self.n} timed")
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": self.protocol,
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        }
        meta = {
            "io.modelcontextprotocol/protocolVersion": self.protocol,
            "io.modelcontextprotocol/clientInfo": {"name": "hoard-http-bench", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        sizes: list[int] = []

        async def call(i: int, timed: bool) -> None:
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": args_for(i), "_meta": meta},
                }
            ).encode()
            t0 = time.perf_counter()
            r = await http.post(url, content=body, headers=headers)
            data = json.loads(r.content) if r.status_code == 200 else None
            ms = (time.perf_counter() - t0) * 1000
            if timed:
                row.samples_ms.append(ms)
                row.labels.append(call_label(args_for(i)))
                sizes.append(len(r.content))
            res = data.get("result") if isinstance(data, dict) else None
            if not isinstance(res, dict) or res.get("isError") or "structuredContent" not in res:
                row.error(f"call {i}: HTTP {r.status_code}: {r.text[:200]}")

        for i in range(self.warmup):
            await call(i, False)
        srv0, cli0, wall0 = proc_cpu_seconds(self.pid), time.process_time(), time.perf_counter()
        for i in range(self.warmup, self.warmup + self.n):
            await call(i, True)
        row.wall_ms = (time.perf_counter() - wall0) * 1000
        row.client_cpu_ms = (time.process_time() - cli0) * 1000
        srv1 = proc_cpu_seconds(self.pid)
        if srv0 is not None and srv1 is not None:
            row.server_cpu_ms = (srv1 - srv0) * 1000
        row.note = f"response {sum(sizes) / max(1, len(sizes)) / 1024:.1f} KiB on average"
        self.rows.append(row)
        return row

    @staticmethod
    def _check(
        row: Row, i: int, res: Any, check: Check | None, timed: bool
    ) -> dict[str, Any] | None:
        data = structured(res)
        problem: str | None = None
        if getattr(res, "is_error", False):
            problem = f"call {i}: is_error: {error_text(res)}"
        elif data is None:
            problem = f"call {i}: no structured content"
        elif check is not None:
            problem = check(i, data)
            if problem:
                problem = f"call {i}: {problem}"
        if problem:
            # Warm-up errors count too: a broken phase must not pass on its timed half.
            row.error(problem + ("" if timed else " (warm-up)"))
        return data


# -- main -----------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    out = {}
    for dist in ("hoard", "mcp", "mcp-types", "httpx2", "uvicorn", "starlette", "pydantic"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "?"
    return out


async def run_phases(
    url: str,
    base: str,
    token: str,
    pid: int,
    args: argparse.Namespace,
    inputs: dict[str, Any],
    extra: dict[str, Any],
) -> list[Row]:
    n, warmup = args.n, args.warmup
    total = n + warmup
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60.0) as hc,
        Client(streamable_http_client(url, http_client=hc)) as c,
    ):
        b = Bench(c, pid, warmup, n)

        # The large scratch note, written first (it is read below).
        large_path = f"{SCRATCH}/large-read.md"
        large = inputs["large_content"]
        res = await c.call_tool("vault_write", {"path": large_path, "content": large})
        data = structured(res)
        if res.is_error or not data or data.get("status") != "written":
            raise RuntimeError(f"could not write the large scratch note: {error_text(res)}")
        large_size = len(large.encode())

        policy = structured(await c.call_tool("vault_policy", {})) or {}
        extra["policy"] = {k: policy.get(k) for k in ("caller", "scopes", "write_mode")}
        if policy.get("write_mode") != "direct":
            raise RuntimeError(f"the bench token is not in direct write mode: {policy}")

        # -- floors -------------------------------------------------------------------------
        await b.phase("policy", "vault_policy (MCP floor)", "vault_policy", lambda i: {})

        hrow = Row("healthz", "GET /healthz (HTTP floor, httpx2)")
        log(f"{hrow.name}: {warmup} warm-up + {n} timed")
        async with httpx2.AsyncClient(timeout=10.0) as plain:
            for _ in range(warmup):
                r = await plain.get(f"{base}/healthz")
                if r.status_code != 200:
                    hrow.error(f"status {r.status_code} (warm-up)")
            srv0, cli0, wall0 = proc_cpu_seconds(pid), time.process_time(), time.perf_counter()
            for i in range(n):
                t0 = time.perf_counter()
                r = await plain.get(f"{base}/healthz")
                hrow.samples_ms.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    hrow.error(f"call {i}: status {r.status_code}")
            hrow.wall_ms = (time.perf_counter() - wall0) * 1000
            hrow.client_cpu_ms = (time.process_time() - cli0) * 1000
            srv1 = proc_cpu_seconds(pid)
            if srv0 is not None and srv1 is not None:
                hrow.server_cpu_ms = (srv1 - srv0) * 1000
        b.rows.append(hrow)

        # -- reads --------------------------------------------------------------------------
        small_path, small_size = inputs["small_note"]

        def read_check(size: int) -> Check:
            def check(i: int, d: dict[str, Any]) -> str | None:
                if d.get("truncated") or d.get("size") != size:
                    return f"size {d.get('size')} truncated={d.get('truncated')}, want {size}"
                return None

            return check

        row, _ = await b.phase(
            "read_small",
            f"vault_read, small note ({small_size / 1024:.1f} KiB)",
            "vault_read",
            lambda i: {"path": small_path},
            read_check(small_size),
        )
        row.note = small_path
        row, _ = await b.phase(
            "read_large",
            f"vault_read, large note ({large_size / 1024:.0f} KiB)",
            "vault_read",
            lambda i: {"path": large_path},
            read_check(large_size),
        )
        row.note = f"{large_path}: scratch note written by the bench"

        # -- search -------------------------------------------------------------------------
        queries: list[dict[str, Any]] = inputs["queries"]
        found = 0

        def search_check(i: int, d: dict[str, Any]) -> str | None:
            nonlocal found
            if d.get("engine") != "fts5" or d.get("error"):
                return f"engine {d.get('engine')!r} error {d.get('error')!r}"
            if i >= warmup:
                paths = {h.get("path") for h in d.get("results", [])}
                if paths & set(queries[i % len(queries)]["relevant"]):
                    found += 1
            return None

        row, _ = await b.phase(
            "search",
            "vault_search, known-item queries",
            "vault_search",
            lambda i: {"query": queries[i % len(queries)]["query"]},
            search_check,
        )
        row.note = f"{len(queries)} distinct queries; relevant note in the top 10: {found}/{n}"
        extra["search_found_top10"] = found

        # -- read_code: a trivial script, and one sandboxed search ---------------------------
        def code_check(i: int, d: dict[str, Any]) -> str | None:
            return None if "result" in d else f"no result: {d}"

        await b.phase(
            "code_trivial",
            "read_code, trivial script",
            "read_code",
            lambda i: {"code": "return 1 + 1;"},
            code_check,
        )
        await b.phase(
            "code_search",
            "read_code, one search call",
            "read_code",
            lambda i: {
                "code": "return (await call('search', {query: "
                + json.dumps(queries[i % len(queries)]["query"])
                + "})).results.length;"
            },
            code_check,
        )

        # -- links --------------------------------------------------------------------------
        link_notes: list[str] = inputs["link_notes"]
        no_outgoing = 0

        def links_check(i: int, d: dict[str, Any]) -> str | None:
            nonlocal no_outgoing
            if not d.get("outgoing"):
                no_outgoing += 1
            return None

        row, _ = await b.phase(
            "links",
            "vault_links, notes with wikilinks",
            "vault_links",
            lambda i: {"path": link_notes[i % len(link_notes)]},
            links_check,
        )
        row.note = f"{len(link_notes)} notes; {no_outgoing} calls found no outgoing link"

        # -- list ---------------------------------------------------------------------------
        for key, label, folder, entries, limit in inputs["lists"]:

            def list_check(
                i: int, d: dict[str, Any], want: int = min(entries, limit)
            ) -> str | None:
                got = len(d.get("entries", []))
                return None if got == want else f"{got} entries, want {want}"

            def list_args(i: int, folder: str = folder, limit: int = limit) -> dict[str, Any]:
                return {"path": folder, "limit": limit}

            row, _ = await b.phase(key, label, "vault_list", list_args, list_check)
            row.note = f"{folder}/: {entries} entries, limit {limit}"

        # -- the same calls without the MCP client library -------------------------------
        version = getattr(getattr(c, "session", None), "protocol_version", None)
        if isinstance(version, str) and version:
            b.protocol = version
        extra["protocol_version"] = b.protocol
        near_folder, near_limit = inputs["lists"][0][2], inputs["lists"][0][4]
        raw_calls: list[tuple[str, str, str, ArgsFor]] = [
            ("raw_policy", "raw POST: vault_policy", "vault_policy", lambda i: {}),
            (
                "raw_read_small",
                "raw POST: vault_read small",
                "vault_read",
                lambda i: {"path": small_path},
            ),
            (
                "raw_read_large",
                "raw POST: vault_read large",
                "vault_read",
                lambda i: {"path": large_path},
            ),
            (
                "raw_search",
                "raw POST: vault_search",
                "vault_search",
                lambda i: {"query": queries[i % len(queries)]["query"]},
            ),
            (
                "raw_links",
                "raw POST: vault_links",
                "vault_links",
                lambda i: {"path": link_notes[i % len(link_notes)]},
            ),
            (
                "raw_list_500",
                f"raw POST: vault_list {near_folder}/",
                "vault_list",
                lambda i: {"path": near_folder, "limit": near_limit},
            ),
        ]
        async with httpx2.AsyncClient(headers=headers, timeout=60.0) as raw:
            for key, label, tool, args_for in raw_calls:
                await b.raw_phase(raw, url, key, label, tool, args_for)

        # -- writes -------------------------------------------------------------------------
        pool: str = inputs["pool"]

        def small_note(i: int, tag: str) -> str:
            return scratch_note(f"Bench note {tag}{i}", 500, pool, 7919 * i + len(tag) * 131)

        def status_is(want: str) -> Check:
            def check(i: int, d: dict[str, Any]) -> str | None:
                if d.get("status") != want:
                    return f"status {d.get('status')!r}, want {want!r}"
                return None

            return check

        def dry_check(i: int, d: dict[str, Any]) -> str | None:
            pre = d.get("preflight") or {}
            if d.get("status") != "dry_run" or pre.get("revision_check") != "create":
                return f"status {d.get('status')!r} preflight {pre.get('revision_check')!r}"
            if pre.get("violations"):
                return f"violations {pre['violations']}"
            return None

        await b.phase(
            "write_dry",
            "vault_write dry_run (500 B, new path)",
            "vault_write",
            lambda i: {
                "path": f"{SCRATCH}/dry-{i}.md",
                "content": small_note(i, "dry "),
                "dry_run": True,
            },
            dry_check,
        )

        _, created = await b.phase(
            "write_create",
            "vault_write create (500 B)",
            "vault_write",
            lambda i: {"path": f"{SCRATCH}/w-{i}.md", "content": small_note(i, "")},
            status_is("written"),
        )
        revisions = [d.get("revision") if d else None for d in created]

        def overwrite_args(i: int) -> dict[str, Any]:
            return {
                "path": f"{SCRATCH}/w-{i}.md",
                "content": small_note(i + total, "v2 "),
                "expected_revision": revisions[i],
            }

        _, overwritten = await b.phase(
            "write_overwrite",
            "vault_write overwrite, expected_revision (500 B)",
            "vault_write",
            overwrite_args,
            status_is("written"),
        )
        revisions = [d.get("revision") if d else None for d in overwritten]

        _, archived = await b.phase(
            "archive",
            "vault_archive (expected_revision)",
            "vault_archive",
            lambda i: {
                "path": f"{SCRATCH}/w-{i}.md",
                "reason": "archived",
                "expected_revision": revisions[i],
            },
            status_is("archived"),
        )
        revision_ids = [d.get("revision_id") if d else None for d in archived]

        def history_check(i: int, d: dict[str, Any]) -> str | None:
            if d.get("revision_id") != revision_ids[i] or d.get("size") != 500:
                return f"revision {d.get('revision_id')!r} size {d.get('size')!r}"
            return None

        await b.phase(
            "history",
            "vault_history by revision_id",
            "vault_history",
            lambda i: {"revision_id": revision_ids[i]},
            history_check,
        )
        return b.rows


def main(argv: Sequence[str] | None = None) -> int:
    zk = evaldata_dir() / "zk-digitalyoshixi"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vault", type=Path, default=zk / "notes", help="the vault (copied first)")
    ap.add_argument(
        "--queries",
        type=Path,
        default=zk / "queries-known-item.jsonl",
        help="known-item queries to sample for vault_search",
    )
    ap.add_argument("--n", type=int, default=200, help="timed calls per phase (default 200)")
    ap.add_argument("--warmup", type=int, default=20, help="warm-up calls per phase")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--max-load", type=float, default=1.5, help="wait for this 1-min load")
    ap.add_argument("--receipt", type=Path, default=None, help="where to write the receipt")
    args = ap.parse_args(argv)
    source: Path = args.vault.resolve()
    if not source.is_dir():
        print(f"http_bench: no vault at {source} (set HOARD_EVALDATA?)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    started = now_iso()
    extra: dict[str, Any] = {}

    load = wait_for_load(args.max_load, 180.0)
    extra["load_wait"] = load
    if not load["settled"]:
        log(f"load average still {load['after']} after {load['waited_s']} s; measuring anyway")
    machine = machine_info()

    tmp = Path(tempfile.mkdtemp(prefix="hoard-http-bench-"))
    server: ServerProcess | None = None

    def cleanup() -> None:
        if server is not None:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    atexit.register(cleanup)
    previous_term = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        src_before = fingerprint(source)
        vault = tmp / "vault"
        log(f"copying {source} to {vault}")
        t0 = time.perf_counter()
        shutil.copytree(source, vault, symlinks=True)
        copy_s = time.perf_counter() - t0
        if (vault / SCRATCH).exists():
            raise RuntimeError(f"the vault already has a {SCRATCH}/ folder")
        notes = md_notes(vault)
        corpus = {
            "vault": str(source),
            "notes": len(notes),
            "mb": round(sum(p.stat().st_size for p in notes) / 1e6, 2),
            "copy_s": round(copy_s, 2),
        }

        # -- inputs -----------------------------------------------------------------------------
        sized = [(abs(p.stat().st_size - 4096), p) for p in notes]
        small = min((s for s in sized if 3000 <= s[1].stat().st_size <= 5000), default=None)
        if small is None:
            raise RuntimeError("no note of 3 to 5 KB in the vault")
        small_rel = small[1].relative_to(vault).as_posix()
        small_size = small[1].stat().st_size

        pool = text_pool(notes, rng, 320_000)
        large_content = scratch_note("Bench note large", 250_000, pool, 0)

        total = args.n + args.warmup
        known = load_queries(args.queries)
        queries = rng.sample(known, min(total, len(known)))
        # The timed calls use queries[warmup:], the warm-up queries[:warmup].

        linked = [p for p in notes if LINK.search(p.read_text(encoding="utf-8", errors="replace"))]
        link_notes = [
            p.relative_to(vault).as_posix() for p in rng.sample(linked, min(total, len(linked)))
        ]

        sizes = folder_sizes(vault)
        largest = max(sizes, key=lambda f: sizes[f][0])
        # The target is for a 500-note folder: take the smallest folder with at least 500
        # notes (conservative: listing cost grows with the entries), else the largest.
        at_least = [f for f in sizes if sizes[f][0] >= 500]
        near500 = min(at_least, key=lambda f: (sizes[f][0], f)) if at_least else largest
        lists = [
            (
                "list_500",
                f"vault_list {near500}/ ({sizes[near500][0]} notes)",
                near500,
                sizes[near500][1],
                max(500, sizes[near500][1]),
            ),
            (
                "list_largest_500",
                f"vault_list {largest}/ ({sizes[largest][0]} notes), limit 500",
                largest,
                sizes[largest][1],
                500,
            ),
            (
                "list_largest_all",
                f"vault_list {largest}/ ({sizes[largest][0]} notes), all",
                largest,
                sizes[largest][1],
                max(500, sizes[largest][1]),
            ),
        ]
        extra["folders"] = {
            "largest": {"path": largest, "notes": sizes[largest][0], "entries": sizes[largest][1]},
            "list_target_folder": {
                "path": near500,
                "notes": sizes[near500][0],
                "entries": sizes[near500][1],
            },
            "top": [
                {"path": f, "notes": s[0]}
                for f, s in sorted(sizes.items(), key=lambda kv: -kv[1][0])[:8]
            ],
        }
        inputs = {
            "small_note": (small_rel, small_size),
            "large_content": large_content,
            # Call i of a phase uses item i: the warm-up the first ``warmup``, the timed
            # calls the rest.
            "queries": queries,
            "link_notes": link_notes,
            "lists": lists,
            "pool": pool,
        }
        extra["inputs"] = {
            "small_note": {"path": small_rel, "bytes": small_size},
            "large_note_bytes": len(large_content.encode()),
            "queries_sampled": len(queries),
            "query_kinds": {
                k: sum(1 for q in queries if q["kind"] == k)
                for k in sorted({q["kind"] for q in queries})
            },
            "notes_with_wikilinks": len(linked),
            "link_notes_sampled": len(link_notes),
        }

        # -- the server -------------------------------------------------------------------------
        state = tmp / "state"
        tokens = tmp / "tokens.json"
        tok = subprocess.run(
            [
                *hoard_cmd(),
                "token",
                "add",
                "bench",
                "--scopes",
                "read,write,confirm,maintenance",
                "--write-mode",
                "direct",
                "--tokens",
                str(tokens),
                "--json",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        token = json.loads(tok.stdout)["token"]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = ServerProcess(vault, state, tokens, port, tmp / "server.log")
        log(f"starting {' '.join(server.cmd)}")
        pid = server.start()
        ready_s = wait_healthy(base, server)
        log(f"/healthz after {ready_s:.1f} s; waiting for the background checks")
        idle_s = wait_idle(pid)
        server_info: dict[str, Any] = {
            "pid": pid,
            "cmd": server.cmd[1:],
            "ready_s": round(ready_s, 2),
            "idle_wait_s": idle_s,
            "mem_after_start_mb": proc_status_mb(pid),
            "cpu_after_start_s": proc_cpu_seconds(pid),
        }

        rows = asyncio.run(run_phases(f"{base}/mcp", base, token, pid, args, inputs, extra))
        if not server.alive():
            raise RuntimeError(f"the server died during the bench:\n{server.log_tail()}")
        mem = proc_status_mb(pid)
        server_info["mem_end_mb"] = mem
        server_info["cpu_end_s"] = proc_cpu_seconds(pid)
        server_log = server.log_tail(4000)
        server_info["exit_code"] = server.stop()
        server_info["log_tail"] = server_log
        src_after = fingerprint(source)
    finally:
        cleanup()
        atexit.unregister(cleanup)
        signal.signal(signal.SIGTERM, previous_term)

    source_untouched = src_before == src_after
    rss_hwm = mem.get("VmHWM", float("nan"))
    rss_ok = rss_hwm < RSS_TARGET_MB

    headers = ["name", "n", "errors", "p50 ms", "p95 ms", "max ms", "target", "result"]
    body = [
        [
            r.name,
            str(len(r.samples_ms)),
            str(r.errors),
            fmt_ms(r.p50),
            fmt_ms(r.p95),
            fmt_ms(r.max),
            f"p50 < {r.target_ms:g} ms" if r.target_ms is not None else "",
            result_cell(r.passed),
        ]
        for r in rows
    ]
    body.append(
        [
            "server RSS at end (VmRSS / peak VmHWM)",
            "1",
            "0",
            f"{mem.get('VmRSS', float('nan')):.0f} MB",
            "",
            f"{rss_hwm:.0f} MB",
            f"peak < {RSS_TARGET_MB:g} MB",
            result_cell(rss_ok),
        ]
    )
    print(
        f"\n## HTTP bench: {corpus['notes']} notes, {corpus['mb']} MB (copy of {source}), "
        f"MCP over 127.0.0.1:{port}\n"
    )
    print(render_table(headers, body))
    print("\nwhere the time goes (per timed call):\n")
    cpu_rows = []
    for r in rows:
        srv = r.per_call(r.server_cpu_ms)
        cli = r.per_call(r.client_cpu_ms)
        wall = r.per_call(r.wall_ms)
        cpu_rows.append(
            [
                r.name,
                fmt_ms(wall) if wall is not None else "-",
                fmt_ms(srv) if srv is not None else "-",
                fmt_ms(cli) if cli is not None else "-",
            ]
        )
    print(render_table(["name", "wall ms", "server CPU ms", "client CPU ms"], cpu_rows))
    print()
    for r in rows:
        if r.note:
            print(f"- {r.name}: {r.note}")
        for e in r.error_examples:
            print(f"  ! {e}")
    for r in rows:
        if r.key in ("search", "raw_search"):
            calls = ", ".join(f"{x['ms']:.0f} ms {x['call']}" for x in r.slowest(3))
            print(f"- slowest {r.name}: {calls}")
    print(f"- source vault untouched: {source_untouched}")
    print(
        f"- server: ready in {server_info['ready_s']} s, idle after {idle_s} s more; "
        f"RSS after start {server_info['mem_after_start_mb']}, at end {mem}"
    )
    print(f"- load average: {load}; at the end {[round(x, 2) for x in os.getloadavg()]}")
    if not source_untouched:
        print(f"! the source vault changed during the bench: {src_before} -> {src_after}")

    payload = {
        "kind": "http",
        "started": started,
        "finished": now_iso(),
        "argv": list(sys.argv if argv is None else argv),
        "git_head": git_head(),
        "machine": machine,
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "versions": versions(),
        "repo": str(REPO_ROOT),
        "corpus": corpus,
        "source_vault_untouched": source_untouched,
        "n": args.n,
        "warmup": args.warmup,
        "seed": args.seed,
        "transport": "Streamable HTTP (json_response), official mcp Client, one session, "
        "sequential calls, 127.0.0.1",
        "rows": [r.as_dict() for r in rows],
        "server": server_info,
        "rss": {
            "VmRSS_mb": mem.get("VmRSS"),
            "VmHWM_mb": rss_hwm,
            "target": f"VmHWM < {RSS_TARGET_MB:g} MB",
            "pass": rss_ok,
        },
        **extra,
    }
    out = write_receipt("http", payload, args.receipt)
    print(f"\nreceipt: {out}")
    failed = [r for r in rows if r.passed is False]
    return 1 if failed or not rss_ok or not source_untouched else 0


if __name__ == "__main__":
    sys.exit(main())
