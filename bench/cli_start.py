"""How fast ``hoard`` starts: ``--version``, ``search`` on the example vault, and ``serve``
over stdio up to its answer to the first ``tools/list``.

    python bench/cli_start.py [--n 10] [--baseline PATH_TO_OTHER_hoard]

Each command runs ``--n`` times (after one untimed run that fills the index and the bytecode
cache); the table shows the median and the slowest wall time, for this checkout's ``hoard``
and, side by side in turns, for ``--baseline`` (another checkout's console script, e.g.
main's before a change), with each run's wall time and the CPU time its process used (user
and system, every thread; on a shared machine the CPU time stretches less than the wall
time). The serve row spawns ``hoard serve`` on a pipe and times from the
spawn to the ``tools/list`` answer (initialize, initialized, tools/list as a client sends
them); in the same turns, the same client times ``bench/bare_mcp_server.py`` (the MCP
SDK's server with one tool and nothing of hoard): the floor of that row. Bytecode is cached
in a temporary folder (``PYTHONPYCACHEPREFIX``), as an installed package has it, even where
``PYTHONDONTWRITEBYTECODE`` is set. Writes
``bench/receipts/cli-start-<date>.json``; the load average is in the receipt: a figure from
a loaded machine compares only with its neighbour in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import REPO_ROOT, machine_info, now_iso, render_table, write_receipt

EXAMPLE_VAULT = REPO_ROOT / "examples" / "vault"
TARGETS_S = {"version": 0.4, "search": 0.4, "serve stdio tools/list": 1.0}
SERVE_ROW = "serve stdio tools/list"
FLOOR = "bare MCP SDK server"
"""The label of the floor's figures: ``bench/bare_mcp_server.py`` on the serve row."""
BARE_SERVER = REPO_ROOT / "bench" / "bare_mcp_server.py"


def child_env(pycache: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPYCACHEPREFIX=str(pycache),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    return env


Run = tuple[float, float]
"""One run: its wall time and the CPU time (user + system) its process used, in seconds."""


def reaped(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> float:
    """Wait for ``proc`` to exit (killed after ``timeout`` seconds); the CPU seconds it used,
    every thread of it."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            proc.kill()
            deadline = float("inf")
        time.sleep(0.002)


def timed_run(cmd: list[str], env: dict[str, str]) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu = reaped(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} exited with {proc.returncode}")
    return time.perf_counter() - start, cpu


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], wanted: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == wanted:
            return message
    raise RuntimeError("hoard serve closed stdout before answering")


def timed_serve(cmd: list[str], env: dict[str, str]) -> Run:
    """From the spawn to the answer of the first ``tools/list``; the CPU time is the whole
    process's, to its exit once stdin closes (a figure the machine's other load does not
    stretch as much as the wall time)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        _send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "cli-start-bench", "version": "1"},
                },
            },
        )
        _answer(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc, 2)
        elapsed = time.perf_counter() - start
        if not tools.get("result", {}).get("tools"):
            raise RuntimeError(f"tools/list answered without tools: {tools}")
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        cpu = reaped(proc)
    return elapsed, cpu


def commands(hoard: str, vault: Path, state: Path) -> dict[str, list[str]]:
    where = ["--vault", str(vault), "--state-dir", str(state)]
    return {
        "version": [hoard, "--version"],
        "search": [hoard, "search", "hue bridge firmware", *where],
        "serve stdio tools/list": [hoard, "serve", *where],
    }


Times = dict[str, dict[str, list[float]]]
"""``{label: {row: [seconds...]}}``."""


def measure(binaries: dict[str, str], n: int, work: Path) -> tuple[Times, Times]:
    """Wall and CPU seconds, each row run for every binary in turn."""
    vault = work / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    plans = {
        label: (commands(exe, vault, work / f"state-{i}"), child_env(work / f"pyc-{i}", work))
        for i, (label, exe) in enumerate(binaries.items())
    }
    floor_env = child_env(work / "pyc-floor", work)
    plans[FLOOR] = ({SERVE_ROW: [sys.executable, str(BARE_SERVER)]}, floor_env)
    wall: Times = {label: {} for label in plans}
    cpu: Times = {label: {} for label in plans}
    for row in TARGETS_S:
        turns = {label: plan for label, plan in plans.items() if row in plan[0]}
        run = timed_serve if row == SERVE_ROW else timed_run
        for label, (cmds, env) in turns.items():  # one untimed run: index, bytecode
            run(cmds[row], env)
            wall[label][row], cpu[label][row] = [], []
        for _ in range(n):
            for label, (cmds, env) in turns.items():
                took, used = run(cmds[row], env)
                wall[label][row].append(took)
                cpu[label][row].append(used)
    return wall, cpu


def _medians(times: Times) -> dict[str, dict[str, float]]:
    return {
        label: {row: statistics.median(xs) for row, xs in rows_of.items()}
        for label, rows_of in times.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10, help="timed runs per row (default 10)")
    parser.add_argument("--baseline", default=None, help="another hoard console script")
    parser.add_argument("--note", default="", help="a remark kept in the receipt")
    parser.add_argument("--receipt", type=Path, default=None)
    args = parser.parse_args()
    here = str(Path(sys.executable).with_name("hoard"))
    binaries = {"this checkout": here}
    if args.baseline:
        binaries["baseline"] = args.baseline
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hoard-cli-start-") as tmp:
        times, cpu = measure(binaries, args.n, Path(tmp))
    load_after = os.getloadavg()
    rows = []
    for row, target in TARGETS_S.items():
        for label in times:
            if row not in times[label]:
                continue
            xs = times[label][row]
            rows.append(
                [
                    row,
                    label,
                    f"{statistics.median(xs) * 1000:.0f}",
                    f"{max(xs) * 1000:.0f}",
                    f"{statistics.median(cpu[label][row]) * 1000:.0f}",
                    f"< {target * 1000:.0f}",
                ]
            )
    head = ["command", "hoard", "median ms", "max ms", "median CPU ms", "target ms"]
    print(render_table(head, rows))
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after (2 cores)")
    receipt = {
        "bench": "cli-start",
        "when": now_iso(),
        "machine": machine_info(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "n": args.n,
        "binaries": binaries,
        "floor": f"{BARE_SERVER.relative_to(REPO_ROOT)} (the serve row's {FLOOR!r})",
        "note": args.note,
        "seconds": times,
        "median_s": _medians(times),
        "cpu_seconds": cpu,
        "median_cpu_s": _medians(cpu),
        "targets_s": TARGETS_S,
    }
    out = write_receipt("cli-start", receipt, args.receipt)
    print(f"receipt {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
