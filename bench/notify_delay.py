"""How long a subscribed client waits to hear of an outside edit (resource subscriptions).

A copy of the vault (the 13k-note zk vault by default; ``--notes N`` generates one instead)
is served in process with the file watcher on, as ``hoard serve`` runs it. One official MCP
client (2025 protocol era, in memory) subscribes to ``vault://recent`` and to one note; then
``--n`` times a note is rewritten on disk the way another editor saves (a new file renamed
into place) and the time until ``notifications/resources/updated`` for it arrives is taken.
Target: p95 under 2 s. The shared data is never written.

    python bench/notify_delay.py [--vault DIR | --notes 2500] [--n 50]

Prints a table and writes ``bench/receipts/notify-delay-<date>.json`` with the machine's
load average before and after (the machine may be shared: the figure moves with its load).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from benchlib import evaldata_dir, machine_info, now_iso, percentile, write_receipt
from hoard.app.hoard import Hoard
from hoard.benchmark.genvault import generate_vault
from hoard.core.policy import OWNER
from hoard.surfaces.mcp.server import HoardMCP

TARGET_P95_S = 2.0


class Heard:
    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.at.setdefault(str(message.params.uri), time.perf_counter())


def outside_save(path: Path, i: int) -> None:
    """Save as an editor does: write a new file beside the note, rename it into place."""
    text = path.read_text(encoding="utf-8").rstrip("\n") + f"\n\nEdit {i} from another editor.\n"
    tmp = path.with_name(f".{path.name}.edit")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


async def measure(hoard: Hoard, notes: list[Path], n: int) -> list[float]:
    heard = Heard()
    delays: list[float] = []
    mcp = HoardMCP(hoard, OWNER)
    async with Client(mcp.server, mode="legacy", message_handler=heard) as c:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the SDK marks the 2025-era call deprecated
            await c.subscribe_resource("vault://recent")
        await anyio.sleep(1.0)
        for i in range(n):
            note = notes[i % len(notes)]
            uri = "vault://recent"
            heard.at.pop(uri, None)
            await anyio.sleep(0.6)  # let the last notice land before the next edit
            heard.at.pop(uri, None)
            t0 = time.perf_counter()
            outside_save(note, i)
            with anyio.fail_after(30):
                while uri not in heard.at:
                    await anyio.sleep(0.005)
            delays.append(heard.at[uri] - t0)
            print(f"\r{i + 1}/{n} edits", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return delays


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, default=None)
    ap.add_argument("--notes", type=int, default=0, help="generate a vault of this many notes")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--receipt", type=Path, default=None)
    opts = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hoard-notify-") as tmp:
        root = Path(tmp) / "vault"
        if opts.notes:
            generate_vault(root, opts.notes)
            source = f"generated, {opts.notes} notes"
        else:
            src = opts.vault or evaldata_dir() / "zk-digitalyoshixi" / "notes"
            shutil.copytree(src, root)
            source = str(src)
        notes = sorted(root.rglob("*.md"))[:200]
        with Hoard(root, Path(tmp) / "state", watch=True) as hoard:
            delays = anyio.run(measure, hoard, notes, opts.n)
            count = hoard.index.note_count()
    p50, p95 = percentile(delays, 50), percentile(delays, 95)
    verdict = "met" if p95 < TARGET_P95_S else "missed"
    print(
        f"{'outside edit -> notifications/resources/updated':<52} p50 {p50:.3f} s  "
        f"p95 {p95:.3f} s  max {max(delays):.3f} s  (target p95 < 2 s: {verdict})"
    )
    receipt = {
        "at": now_iso(),
        "machine": machine_info(),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "vault": source,
        "notes": count,
        "n": len(delays),
        "delay_s": {"p50": p50, "p95": p95, "max": max(delays)},
        "samples_s": [round(d, 4) for d in delays],
        "target_p95_s": TARGET_P95_S,
        "verdict": verdict,
    }
    print(f"receipt: {write_receipt('notify-delay', receipt, opts.receipt)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
