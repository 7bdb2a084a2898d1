"""How fast ``hoard`` starts: ``--version``, ``search`` on the example vault, and ``serve``
over stdio up to its answer to the first ``tools/list``.

    python bench/cli_start.py [--n 10] [--baseline PATH_TO_OTHER_hoard]

Each command runs ``--n`` times (after one untimed run that fills the index and the bytecode
cache); the table shows the median and the slowest wall time, for this checkout's ``hoard``
and, side by side in turns, for ``--baseline`` (another checkout's console script, e.g.
main's before a change). The serve row spawns ``hoard serve`` on a pipe and times from the
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


def timed_run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


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


def timed_serve(cmd: list[str], env: dict[str, str]) -> float:
    """From the spawn to the answer of the first ``tools/list``."""
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
        return elapsed
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def commands(hoard: str, vault: Path, state: Path) -> dict[str, list[str]]:
    where = ["--vault", str(vault), "--state-dir", str(state)]
    return {
        "version": [hoard, "--version"],
        "search": [hoard, "search", "hue bridge firmware", *where],
        "serve stdio tools/list": [hoard, "serve", *where],
    }


def measure(binaries: dict[str, str], n: int, work: Path) -> dict[str, dict[str, list[float]]]:
    """``{label: {row: [seconds...]}}``, each row run for every binary in turn."""
    vault = work / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    plans = {
        label: (commands(exe, vault, work / f"state-{i}"), child_env(work / f"pyc-{i}", work))
        for i, (label, exe) in enumerate(binaries.items())
    }
    floor_env = child_env(work / "pyc-floor", work)
    plans[FLOOR] = ({SERVE_ROW: [sys.executable, str(BARE_SERVER)]}, floor_env)
    times: dict[str, dict[str, list[float]]] = {label: {} for label in plans}
    for row in TARGETS_S:
        turns = {label: plan for label, plan in plans.items() if row in plan[0]}
        run = timed_serve if row == SERVE_ROW else timed_run
        for label, (cmds, env) in turns.items():  # one untimed run: index, bytecode
            run(cmds[row], env)
            times[label][row] = []
        for _ in range(n):
            for label, (cmds, env) in turns.items():
                times[label][row].append(run(cmds[row], env))
    return times


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
        times = measure(binaries, args.n, Path(tmp))
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
                    f"< {target * 1000:.0f}",
                ]
            )
    print(render_table(["command", "hoard", "median ms", "max ms", "target ms"], rows))
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
        "median_s": {
            label: {row: statistics.median(xs) for row, xs in rows_of.items()}
            for label, rows_of in times.items()
        },
        "targets_s": TARGETS_S,
    }
    out = write_receipt("cli-start", receipt, args.receipt)
    print(f"receipt {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
