"""A replica's startup settles only its own interrupted writes, and a replica whose view of
the shared folder lags is refused rather than overwriting a newer revision."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hoard.adapters.ledger.records import Records
from hoard.app.hoard import Hoard
from hoard.core.errors import Conflict
from hoard.core.policy import OWNER
from tests.helpers import sha

CRASHING_WRITE = """
import sys
from pathlib import Path
from hoard.app.hoard import Hoard
vault, state, name, rel, content, expected = sys.argv[1:7]
with Hoard(Path(vault), Path(state), replica=name) as h:
    h.writes.write(rel, content, expected, caller=h.owner)
"""


def crash_mid_write(vault: Path, state: Path, name: str, rel: str, content: str) -> None:
    """Replica ``name`` dies (as ``kill -9`` would) with the new bytes staged."""
    env = {**os.environ, "HOARD_FAILPOINT": "write.stage_fsync"}
    expected = sha((vault / rel).read_bytes())
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CRASHING_WRITE,
            str(vault),
            str(state),
            name,
            rel,
            content,
            expected,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 97, proc.stderr[-2000:]


def open_intents(h: Hoard) -> list[str]:
    with h.ledger.read() as conn:
        rows = conn.execute(
            "SELECT e.replica FROM events e WHERE e.decision = 'intent' AND NOT EXISTS "
            "(SELECT 1 FROM events o WHERE o.intent_id = e.event_id)"
        ).fetchall()
    return [r[0] for r in rows]


def test_a_replica_starting_leaves_another_replicas_interrupted_write_alone_and_its_own_settles(
    shared, replica, put, note_text, vault: Path, tmp_path: Path
) -> None:
    put("team/log.md", note_text("Log", "Old."))
    crash_mid_write(vault, tmp_path / "state-a", "a", "team/log.md", note_text("Log", "New."))
    stages = sorted(p.name for p in (vault / "team").glob(".hoard-stage-*"))
    assert len(stages) == 1 and stages[0].startswith(".hoard-stage-a.")

    b = replica("b")
    assert open_intents(b) == ["a"]
    assert sorted(p.name for p in (vault / "team").glob(".hoard-stage-*")) == stages

    replica("a")
    assert open_intents(b) == []
    assert list((vault / "team").glob(".hoard-stage-*")) == []
    settled = [e for e in Records(b.ledger).events_of("team/log.md") if e.decision != "refused"]
    assert settled[-1].decision == "not_written"
    assert (vault / "team/log.md").read_text() == note_text("Log", "Old.")


def test_one_process_on_the_state_folder_settles_every_interrupted_write_as_before(
    replica, put, note_text, vault: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("HOARD_STORE_URL", raising=False)
    put("team/log.md", note_text("Log", "Old."))
    crash_mid_write(vault, tmp_path / "state-x", "a", "team/log.md", note_text("Log", "New."))
    stages = [p.name for p in (vault / "team").glob(".hoard-stage-*")]
    assert len(stages) == 1 and "." not in stages[0].removeprefix(".hoard-stage-")

    h = replica("x")  # the same state folder, another name (a restart has another pid)

    assert open_intents(h) == []
    assert list((vault / "team").glob(".hoard-stage-*")) == []


def test_a_replica_whose_view_of_the_folder_lags_is_refused_with_conflict_carrying_the_head(
    shared, replica, caught_up, put, note_text, vault: Path
) -> None:
    old = note_text("Log", "One.").encode()
    put("team/log.md", old)
    a, b = replica("a"), replica("b")
    new = a.writes.write("team/log.md", note_text("Log", "Two."), sha(old), caller=OWNER)
    caught_up(b)  # else b, applying a's change later, reads the lag as a save
    # What b reads: the bytes before a's write, as a lagging cache of the shared folder shows.
    (vault / "team/log.md").write_bytes(old)

    with pytest.raises(Conflict) as info:
        b.writes.write("team/log.md", note_text("Log", "Three."), sha(old), caller=OWNER)

    assert info.value.current_revision == new.revision
    assert (vault / "team/log.md").read_bytes() == old


def test_a_save_from_outside_is_not_taken_for_a_lagging_view(
    shared, replica, put, note_text, vault: Path
) -> None:
    old = note_text("Log", "One.").encode()
    put("team/log.md", old)
    a, b = replica("a"), replica("b")
    a.writes.write("team/log.md", note_text("Log", "Two."), sha(old), caller=OWNER)
    outside = note_text("Log", "Edited in an editor.").encode()
    (vault / "team/log.md").write_bytes(outside)

    done = b.writes.write("team/log.md", note_text("Log", "Three."), sha(outside), caller=OWNER)

    assert done.status == "written"
    assert (vault / "team/log.md").read_text() == note_text("Log", "Three.")


def test_one_process_on_the_state_folder_writes_over_an_older_revision_as_before(
    hoard: Hoard, put, note_text, vault: Path, monkeypatch
) -> None:
    if os.environ.get("HOARD_STORE_URL"):
        pytest.skip("the files' engine only")
    old = note_text("Log", "One.").encode()
    put("team/log.md", old)
    hoard.writes.write("team/log.md", note_text("Log", "Two."), sha(old), caller=OWNER)
    (vault / "team/log.md").write_bytes(old)  # an editor's undo

    done = hoard.writes.write("team/log.md", note_text("Log", "Three."), sha(old), caller=OWNER)

    assert done.status == "written"
