"""Concurrency: real processes racing on one note with read-modify-write and expected_revision;
per-path locks that serialise writers of one note and never block writers of another."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hoard.adapters.fs import atomic
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import sha

NOTE = "tech/counter.md"

# One racing writer: open the vault, wait at the barrier, then N times: read the note, append
# one line, write it with the revision just read. No retry on conflict: just count.
WORKER = """
import hashlib, json, sys, time
from pathlib import Path
from hoard.core.errors import HoardError
from hoard.app.hoard import Hoard

vault, state, rel, me, n, barrier = sys.argv[1:7]
with Hoard(Path(vault), Path(state)) as hoard:
    Path(barrier, f"ready-{me}").touch()
    deadline = time.monotonic() + 60
    while not Path(barrier, "go").exists():
        if time.monotonic() > deadline:
            sys.exit(4)
        time.sleep(0.002)
    ok, conflicts, other = [], 0, []
    for j in range(int(n)):
        raw = (Path(vault) / rel).read_bytes()
        line = f"- {me}-{j}"
        try:
            hoard.writes.write(
                rel,
                raw.decode() + line + "\\n",
                hashlib.sha256(raw).hexdigest(),
                caller=hoard.owner,
            )
            ok.append(line)
        except HoardError as exc:
            if exc.code == "conflict":
                conflicts += 1
            else:
                other.append(exc.to_object())
print(json.dumps({"ok": ok, "conflicts": conflicts, "other": other}))
"""


def race(
    processes: int,
    writes: int,
    vault: Path,
    state_dir: Path,
    tmp_path: Path,
    put,
    note_text,
    open_hoard,
    wait_until,
    verify_ledger,
) -> None:
    initial = note_text("Counter", "Lines appended by racing writers:").encode()
    put(NOTE, initial)
    with Hoard(vault, state_dir):  # the index and ledger exist before the race
        pass
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    where = [str(vault), str(state_dir), NOTE]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, *where, f"p{i}", str(writes), str(barrier)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    try:
        wait_until(lambda: len(list(barrier.glob("ready-*"))) == processes, timeout=60)
        (barrier / "go").touch()
        outputs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err[-3000:]
    results = [json.loads(out) for out, _ in outputs]

    ok = [line for r in results for line in r["ok"]]
    conflicts = sum(r["conflicts"] for r in results)
    # A writer may also give up with `busy` after waiting out the lock timeout (10 s): it
    # happens only on an overloaded machine, and it is an honest refusal that loses nothing.
    gave_up = [o for r in results for o in r["other"]]
    assert [o["error"] for o in gave_up if o["error"] != "busy"] == [], "only conflicts or busy"
    assert len(ok) + conflicts + len(gave_up) == processes * writes
    assert ok, "at least one write must win"

    final = (vault / NOTE).read_bytes()
    appended = final[len(initial) :].decode().splitlines()
    assert final.startswith(initial)
    assert sorted(appended) == sorted(ok), "the file holds exactly the accepted lines"
    assert len(set(appended)) == len(appended)

    hoard = open_hoard()
    events = hoard.writes.retirement.history(NOTE, caller=OWNER).events
    written = [e for e in events if e.decision == "written"]
    refused = [e for e in events if e.decision == "refused"]
    assert len(written) == len(ok)
    assert len(refused) == conflicts + len(gave_up)
    assert all((e.reason or "").startswith(("conflict:", "busy:")) for e in refused)
    # One unbroken chain from the initial bytes to the final bytes.
    assert written[0].before == sha(initial)
    assert written[-1].after == sha(final)
    for prev, nxt in itertools.pairwise(written):
        assert nxt.before == prev.after
    # Every accepted write preserved the revision it replaced.
    preserved = {r.sha256 for r in hoard.writes.retirement.history(NOTE, caller=OWNER).revisions}
    assert {e.before for e in written} <= preserved
    assert verify_ledger(hoard, NOTE) == len(ok)


def test_racing_writers_on_one_note_either_win_into_one_chain_or_get_conflict(
    vault, state_dir, tmp_path, put, note_text, open_hoard, wait_until, verify_ledger
) -> None:
    race(4, 15, vault, state_dir, tmp_path, put, note_text, open_hoard, wait_until, verify_ledger)


@pytest.mark.slow
def test_eight_processes_times_fifty_writes_on_one_note_lose_nothing(
    vault, state_dir, tmp_path, put, note_text, open_hoard, wait_until, verify_ledger
) -> None:
    race(8, 50, vault, state_dir, tmp_path, put, note_text, open_hoard, wait_until, verify_ledger)


# -- per-path locks ------------------------------------------------------------------------------


@pytest.fixture
def two_notes(put, note_text) -> dict[str, bytes]:
    a = note_text("A", "First.").encode()
    b = note_text("B", "Second.").encode()
    put("tech/a.md", a)
    put("tech/b.md", b)
    return {"tech/a.md": a, "tech/b.md": b}


def test_a_write_to_another_note_completes_while_one_note_is_locked(
    two_notes, hoard: Hoard, note_text, vault, run_op
) -> None:
    with hoard.shared.path_locks().lock("tech/a.md"):
        here = hoard.writes.write(
            "tech/b.md", note_text("B", "v2"), sha(two_notes["tech/b.md"]), caller=OWNER
        )
        code, out, err = run_op(
            "write", path="tech/new.md", content=note_text("New", "From another process.")
        )

    assert here.status == "written"
    assert (code, out["status"]) == (0, "written"), err
    assert (vault / "tech" / "a.md").read_bytes() == two_notes["tech/a.md"]


def test_a_write_to_a_locked_note_is_busy_after_the_lock_timeout_and_changes_nothing(
    two_notes, hoard: Hoard, note_text, snap, monkeypatch
) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT_S", 0.2)
    before = snap("tech/a.md")

    with (
        hoard.shared.path_locks().lock("tech/a.md"),
        pytest.raises(Exception) as info,
    ):
        hoard.writes.write(
            "tech/a.md", note_text("A", "v2"), sha(two_notes["tech/a.md"]), caller=OWNER
        )

    assert getattr(info.value, "code", None) == "busy"
    assert info.value.to_object()["path"] == "tech/a.md"
    assert snap("tech/a.md") == before
    # Released: the same write goes through.
    again = hoard.writes.write(
        "tech/a.md", note_text("A", "v2"), sha(two_notes["tech/a.md"]), caller=OWNER
    )
    assert again.status == "written"


@pytest.mark.slow
def test_another_process_gets_busy_with_the_real_lock_timeout(
    two_notes, hoard: Hoard, note_text, snap, run_op
) -> None:
    before = snap("tech/a.md")

    with hoard.shared.path_locks().lock("tech/a.md"):
        code, out, _ = run_op(
            "write",
            path="tech/a.md",
            content=note_text("A", "v2"),
            expected_revision=sha(two_notes["tech/a.md"]),
        )

    assert (code, out["error"]) == (3, "busy")
    assert snap("tech/a.md") == before
