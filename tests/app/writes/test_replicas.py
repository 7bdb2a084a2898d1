"""Replicas of one vault on one shared store: revision-checked writers on two of them lose
nothing, and two confirms of one proposal racing apply it once. On the files' engine the
two are two :class:`Hoard` of one state folder (what one process's commands share)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.ledger.records import Records
from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError, ProposalNotFound
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha

DRAFTER = Caller("drafter", frozenset({"read", "write"}), "propose")
NOTES = ("team/log.md", "team/plan.md")


@pytest.fixture(params=["sqlite", "postgres"])
def replicas(
    request: pytest.FixtureRequest, monkeypatch, vault: Path, tmp_path: Path
) -> Iterator[Callable[[str], Hoard]]:
    """Open a replica of the vault by name: its own state folder on a shared PostgreSQL
    store, or the one state folder on the files' engine."""
    if request.param == "postgres":
        monkeypatch.setenv("HOARD_STORE_URL", request.getfixturevalue("pg_store"))
    shared = os.environ.get("HOARD_STORE_URL")
    opened: list[Hoard] = []

    def open_(name: str) -> Hoard:
        state = tmp_path / (f"state-{name}" if shared else "state")
        h = Hoard(vault, state, replica=name)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


def append(h: Hoard, vault: Path, rel: str, line: str) -> None:
    """Append a line with a revision-checked write, again on ``conflict`` or ``busy``."""
    for _ in range(1000):
        raw = (vault / rel).read_bytes()
        try:
            h.writes.write(rel, raw.decode() + line + "\n", sha(raw), caller=OWNER)
            return
        except HoardError as exc:
            if exc.code not in ("conflict", "busy"):
                raise
    raise AssertionError(f"{line!r} never got in")


def assert_every_revision_in_the_ledger(h: Hoard, vault: Path, rel: str, writes: int) -> None:
    """Every acknowledged write of ``rel`` is one ``written`` event, each starting from the
    revision the one before it wrote, the last one's at the path, and its bytes kept."""
    events = Records(h.ledger).events_of(rel, limit=10_000)
    written = [e for e in events if e.decision == "written"]
    assert len(written) == writes, [(e.event_id, e.reason) for e in written]
    for earlier, later in itertools.pairwise(written):
        assert later.before == earlier.after
    assert written[-1].after == sha((vault / rel).read_bytes())
    for e in written:
        with h.ledger.read() as conn:
            row = conn.execute("SELECT 1 FROM kept_bytes WHERE sha256 = ?", (e.after,)).fetchone()
        assert row is not None


def test_writers_on_two_replicas_appending_to_the_same_notes_lose_nothing(
    replicas, put, note_text, vault: Path
) -> None:
    for rel in NOTES:
        put(rel, note_text("Log", "Lines:"))
    a, b = replicas("a"), replicas("b")
    per_writer = 6
    errors: list[BaseException] = []

    def writer(h: Hoard, name: str) -> None:
        try:
            for i in range(per_writer):
                append(h, vault, NOTES[i % 2], f"- {name} {i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=writer, args=(h, f"{h.shared.replica}{w}"))
        for h in (a, b)
        for w in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)

    assert errors == []
    for n, rel in enumerate(NOTES):
        lines = (vault / rel).read_text().splitlines()
        expected = {
            f"- {r}{w} {i}" for r in "ab" for w in range(4) for i in range(n, per_writer, 2)
        }
        assert sorted(x for x in lines if x.startswith("- ")) == sorted(expected)
        assert_every_revision_in_the_ledger(a, vault, rel, len(expected))


WRITER_PROCESS = """
import sys, threading
from pathlib import Path
from hoard.app.hoard import Hoard
from tests.app.writes.test_replicas import append

vault, state, name, rel, writers, count = sys.argv[1:7]
with Hoard(Path(vault), Path(state), replica=name) as h:
    threads = [
        threading.Thread(
            target=lambda w=w: [
                append(h, Path(vault), rel, f"- {name}{w} {i}") for i in range(int(count))
            ]
        )
        for w in range(int(writers))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print("done")
"""


def test_two_replica_processes_on_one_postgres_lose_no_write_to_one_note(
    pg_store: str, put, note_text, vault: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    put("team/log.md", note_text("Log", "Lines:"))
    writers, count = 3, 8
    child = [sys.executable, "-c", WRITER_PROCESS, str(vault)]
    procs = [
        subprocess.Popen(
            [*child, str(tmp_path / name), name, "team/log.md", str(writers), str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parents[3],
        )
        for name in ("a", "b")
    ]
    outs = [p.communicate(timeout=300) for p in procs]

    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]
    lines = [x for x in (vault / "team/log.md").read_text().splitlines() if x.startswith("- ")]
    expected = {f"- {r}{w} {i}" for r in "ab" for w in range(writers) for i in range(count)}
    assert sorted(lines) == sorted(expected)
    h = Hoard(vault, tmp_path / "check", replica="check")
    try:
        assert_every_revision_in_the_ledger(h, vault, "team/log.md", len(expected))
    finally:
        h.close()


def test_two_confirms_racing_on_two_replicas_apply_once_and_the_other_hears_it_was_confirmed(
    replicas, put, note_text, vault: Path, tmp_path: Path, monkeypatch
) -> None:
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    a, b = replicas("a"), replicas("b")
    p = a.writes.write("tech/lamp.md", note_text("Lamp", "Brighter."), sha(raw), caller=DRAFTER)
    # The first confirm stops inside the note's lock, with the proposal still pending, while
    # the second one reads it as pending too and waits for the lock.
    monkeypatch.setenv("HOARD_FAILPOINT", "write.locked:pause")
    monkeypatch.setenv("HOARD_FAILPOINT_DIR", str(tmp_path))
    results: dict[str, object] = {}

    def confirm(h: Hoard, key: str) -> None:
        try:
            results[key] = h.writes.confirm(p.proposal_id, caller=OWNER)
        except HoardError as exc:
            results[key] = exc

    first = threading.Thread(target=confirm, args=(a, "a"))
    first.start()
    deadline = time.monotonic() + 30
    while not (tmp_path / "write.locked.paused").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    second = threading.Thread(target=confirm, args=(b, "b"))
    second.start()
    time.sleep(0.5)
    (tmp_path / "write.locked.go").touch()
    first.join(60)
    second.join(60)

    assert getattr(results["a"], "status", None) == "written"
    loser = results["b"]
    assert isinstance(loser, ProposalNotFound)
    assert "already confirmed" in loser.message
    assert (vault / "tech/lamp.md").read_text() == note_text("Lamp", "Brighter.")
    events = Records(a.ledger).events_of("tech/lamp.md")
    assert [e.decision for e in events].count("written") == 1
    assert json.dumps(loser.to_object())  # the SPEC error object
