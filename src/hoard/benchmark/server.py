"""``hoard serve --http`` in its own process for the bench: start, wait until it answers and
its background checks are done, read its memory and CPU from ``/proc``, stop."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from hoard.adapters.tokens import TokenStore

BENCH_CALLER = "bench"
BENCH_SCOPES = "read,write,confirm,maintenance"


def hoard_cmd() -> list[str]:
    """This interpreter running this hoard (not whichever ``hoard`` is first on PATH)."""
    return [sys.executable, "-m", "hoard.surfaces.cli.main"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_token(tokens: Path) -> str:
    """A bench caller in a fresh tokens file: every scope, direct writes."""
    _, token = TokenStore(tokens).add(BENCH_CALLER, BENCH_SCOPES, "direct")
    return token


def proc_status_mb(pid: int) -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` (peak RSS) of a live process from ``/proc/<pid>/status``, in
    MiB; empty when unreadable (not Linux, or the process is gone)."""
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = round(int(value.split()[0]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        return {}
    return out


def proc_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process (all its threads), in seconds."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        fields = raw[raw.rindex(")") + 2 :].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    except (OSError, ValueError, IndexError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


class ServerProcess:
    """``hoard serve --http`` on loopback; :meth:`stop` is safe to call twice."""

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
        self.base = f"http://127.0.0.1:{port}"
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
        if self.proc is None:
            raise RuntimeError("the server was not started")
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

    def wait_healthy(self, timeout_s: float = 900.0) -> float:
        """Seconds until ``/healthz`` answered 200 (the server has opened its index)."""
        import httpx2

        t0 = time.monotonic()
        with httpx2.Client(timeout=2.0) as hc:
            while time.monotonic() - t0 < timeout_s:
                if not self.alive():
                    raise RuntimeError(f"the server exited early:\n{self.log_tail()}")
                with contextlib.suppress(httpx2.HTTPError):
                    if hc.get(f"{self.base}/healthz").status_code == 200:
                        return time.monotonic() - t0
                time.sleep(0.05)
        raise RuntimeError(f"no /healthz after {timeout_s:.0f} s:\n{self.log_tail()}")

    def wait_idle(
        self, window_s: float = 0.5, idle_cpu_s: float = 0.02, timeout_s: float = 180.0
    ) -> float:
        """Wait until the server spends under ``idle_cpu_s`` CPU in ``window_s`` (its deep
        index check and typo vocabulary warm-up are done); seconds waited."""
        t0 = time.monotonic()
        last = proc_cpu_seconds(self.pid)
        while time.monotonic() - t0 < timeout_s:
            time.sleep(window_s)
            now = proc_cpu_seconds(self.pid)
            if now is None or last is None or now - last < idle_cpu_s:
                break
            last = now
        return round(time.monotonic() - t0, 2)
