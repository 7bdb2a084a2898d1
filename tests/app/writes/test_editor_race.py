"""Two editor processes (one saving by rename, one in place) save a note every 10-60 ms while
8 writers append to it through hoard. No editor save is ever replaced by bytes hoard had not
seen: every line an editor saved is in the final file, or in the ledger (an editor save a
write swapped out for a moment, which an editor reading hoard's bytes in that moment then
replaced). The one loss nothing can see is excepted, and only it: an in-place save through a
handle opened before hoard swapped the file out, written after hoard answered, goes to a file
no longer at any path (docs/outside-editors.md); the editor logs such saves as orphaned. A
writer that lost the race got ``conflict`` (and retried); the file is never torn and no stage
file is left behind."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hoard.adapters.fs import exchange
from hoard.app.hoard import Hoard
from hoard.app.writes.core import OUTSIDE_SAVE_KEPT
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER

NOTE = "tech/race.md"
EDITOR = Path(__file__).with_name("editor_process.py")

pytestmark = pytest.mark.skipif(not exchange.available(), reason="needs Linux renameat2")


def writer(hoard: Hoard, i: int, deadline: float, acked: list[str], refused: list[str]) -> None:
    n = 0
    while time.monotonic() < deadline:
        line = f"writer-{i}-{n}"
        try:
            current = hoard.reading.read(NOTE, caller=OWNER)
            hoard.writes.write(NOTE, current.content + line + "\n", current.revision, caller=OWNER)
        except HoardError as exc:  # conflict (lost the race), or a read of a half-saved file
            refused.append(exc.code)
            continue
        acked.append(line)
        n += 1


def race(seconds: float, vault: Path, tmp_path: Path, hoard: Hoard) -> None:
    lock, logs = tmp_path / "editors.lock", []
    editors = []
    for k, mode in enumerate(("rename", "inplace")):
        log = tmp_path / f"{mode}.log"
        logs.append(log)
        args = [str(vault), NOTE, mode, str(seconds), str(log), str(lock), str(k)]
        editors.append(subprocess.Popen([sys.executable, str(EDITOR), *args]))
    deadline = time.monotonic() + seconds
    acked: list[str] = []
    refused: list[str] = []
    threads = [
        threading.Thread(target=writer, args=(hoard, i, deadline, acked, refused)) for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in editors:
        assert e.wait(timeout=120) == 0

    final = (vault / NOTE).read_text()
    lines = set(final.splitlines())
    logged = [line.split("\t") for log in logs for line in log.read_text().splitlines()]
    saved = [entry[0] for entry in logged]
    orphaned = {entry[0] for entry in logged if entry[1:] == ["orphaned"]}
    assert saved, "the editors never saved"
    # an editor save that a write swapped out for a moment is kept in the ledger (an editor
    # may read the write's bytes in that moment and save from them, replacing it)
    for rev in hoard.writes.retirement.history(NOTE, caller=OWNER).revisions:
        if rev.reason == OUTSIDE_SAVE_KEPT:
            content = hoard.writes.retirement.history(
                revision_id=rev.revision_id, caller=OWNER
            ).content
            lines |= set(content.splitlines())
    lost = [line for line in saved if line not in lines and line not in orphaned]
    assert lost == [], f"{len(lost)} of {len(saved)} editor saves were lost: {lost[:5]}"
    assert final.startswith("---\ntitle: Race\n"), "the note is torn"
    assert acked, "no writer ever got through"
    assert set(refused) <= {"conflict", "contract_violation", "exists", "busy"}, set(refused)
    assert sorted(vault.rglob(".hoard-stage-*")) == []


@pytest.fixture
def race_note(put, note_text) -> None:
    put(NOTE, note_text("Race", "Lines:"))


def test_editors_racing_eight_writers_for_a_few_seconds_lose_no_save(
    race_note, vault: Path, tmp_path: Path, hoard: Hoard
) -> None:
    race(3.0, vault, tmp_path, hoard)


@pytest.mark.slow
def test_editors_racing_eight_writers_for_twenty_seconds_lose_no_save(
    race_note, vault: Path, tmp_path: Path, hoard: Hoard
) -> None:
    race(20.0, vault, tmp_path, hoard)
