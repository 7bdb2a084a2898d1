"""An outside editor saving a note while hoard writes it: the save that lands between hoard's
revision check and its swap is never replaced by bytes hoard has not seen. A real child
process writes, paused by a failpoint inside the window while the test saves the note the
way editors do (by rename, or in place); then the write goes on. Crashes at the new steps
(after the exchange, after a swap-back) are recovered at startup without losing a save."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.adapters.fs import exchange, failpoints
from hoard.app.hoard import Hoard
from hoard.app.writes.core import OUTSIDE_SAVE_KEPT
from hoard.core.policy import OWNER
from tests.helpers import sha, wait_until

NOTE = "tech/lamp.md"

pytestmark = pytest.mark.skipif(not exchange.available(), reason="needs Linux renameat2")


@pytest.fixture
def scene(put, note_text) -> dict[str, bytes]:
    old = note_text("Lamp", "Old words about the lamp.").encode()
    put(NOTE, old)
    return {
        "old": old,
        "new": note_text("Lamp", "Hoard's words: a glimmerquartz lamp.").encode(),
        "editor": note_text("Lamp", "The person's words, saved in the editor.").encode(),
        "later": note_text("Lamp", "The person's second save.").encode(),
    }


def save_by_rename(vault: Path, rel: str, data: bytes) -> None:
    tmp = vault / (rel + ".editor-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, vault / rel)


def save_in_place(vault: Path, rel: str, data: bytes) -> None:
    with open(vault / rel, "r+b") as f:
        f.truncate(0)
        f.write(data)


SAVES: dict[str, Callable[[Path, str, bytes], None]] = {
    "rename": save_by_rename,
    "in place": save_in_place,
}


class Paused:
    """A child write stopped at ``name:pause`` failpoints in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def wait(self, name: str) -> None:
        wait_until(lambda: (self.folder / f"{name}.paused").exists(), timeout=60)

    def go(self, name: str) -> None:
        (self.folder / f"{name}.go").touch()


def finish(proc: subprocess.Popen[str]) -> tuple[int, dict[str, object]]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, (json.loads(out) if out.strip() else {"stderr": err})


def start_write(start_op, tmp_path: Path, scene, spec: str) -> tuple[subprocess.Popen[str], Paused]:
    folder = tmp_path / "pauses"
    folder.mkdir()
    proc = start_op(
        "write",
        spec,
        folder,
        path=NOTE,
        content=scene["new"].decode(),
        expected_revision=sha(scene["old"]),
    )
    return proc, Paused(folder)


@pytest.mark.parametrize("how", SAVES)
def test_a_save_between_the_revision_check_and_the_swap_stays_and_the_write_is_a_conflict(
    how: str, scene, vault: Path, start_op, tmp_path: Path, stage_files, open_hoard
) -> None:
    proc, paused = start_write(start_op, tmp_path, scene, "write.stage_fsync:pause")
    paused.wait("write.stage_fsync")
    SAVES[how](vault, NOTE, scene["editor"])
    paused.go("write.stage_fsync")

    code, answer = finish(proc)

    assert code == 3, answer
    assert answer["error"] == "conflict"
    assert answer["current_revision"] == sha(scene["editor"])
    assert (vault / NOTE).read_bytes() == scene["editor"]
    assert stage_files() == []
    *events, outside = open_hoard().writes.retirement.history(NOTE, caller=OWNER).events
    assert events[-1].decision == "failed" and "conflict" in (events[-1].reason or "")
    # the next start notices the editor's save as one from outside, over the old bytes
    assert (outside.decision, outside.before, outside.after) == (
        "edited_outside",
        sha(scene["old"]),
        sha(scene["editor"]),
    )


def test_a_newer_save_landing_during_the_swap_back_is_the_one_left_at_the_path(
    scene, vault: Path, start_op, tmp_path: Path, stage_files
) -> None:
    spec = "write.stage_fsync:pause,write.exchanged:pause"
    proc, paused = start_write(start_op, tmp_path, scene, spec)
    paused.wait("write.stage_fsync")
    save_by_rename(vault, NOTE, scene["editor"])
    paused.go("write.stage_fsync")
    paused.wait("write.exchanged")
    save_by_rename(vault, NOTE, scene["later"])  # over hoard's bytes, before the check
    paused.go("write.exchanged")

    code, answer = finish(proc)

    assert (code, answer["error"]) == (3, "conflict"), answer
    assert answer["current_revision"] == sha(scene["later"])
    assert (vault / NOTE).read_bytes() == scene["later"]
    assert stage_files() == []


@pytest.mark.parametrize("how", SAVES)
def test_a_newer_save_the_swap_back_puts_back_is_kept_for_an_editor_saving_over_it(
    how: str, scene, vault: Path, start_op, tmp_path: Path, open_hoard
) -> None:
    """The swap-back shows the older save at the path for a moment before it puts the newer
    one back; an editor that read the older one there and saves from it later replaces the
    newer one, whose bytes the ledger keeps."""
    spec = "write.stage_fsync:pause,write.exchanged:pause,write.swapped_back:pause"
    proc, paused = start_write(start_op, tmp_path, scene, spec)
    paused.wait("write.stage_fsync")
    save_by_rename(vault, NOTE, scene["editor"])
    paused.go("write.stage_fsync")
    paused.wait("write.exchanged")
    SAVES[how](vault, NOTE, scene["later"])  # over (or into) hoard's bytes at the path
    paused.go("write.exchanged")
    paused.wait("write.swapped_back")
    seen = (vault / NOTE).read_bytes()
    paused.go("write.swapped_back")
    code, answer = finish(proc)
    assert (code, answer["error"]) == (3, "conflict"), answer
    assert (vault / NOTE).read_bytes() == scene["later"]
    save_by_rename(vault, NOTE, seen + b"\nOne more line, saved from the older bytes.\n")

    hoard = open_hoard()

    assert seen == scene["editor"]
    kept = [
        hoard.writes.retirement.history(revision_id=r.revision_id, caller=OWNER).content.encode()
        for r in hoard.writes.retirement.history(NOTE, caller=OWNER).revisions
        if r.reason == OUTSIDE_SAVE_KEPT
    ]
    assert scene["later"] in kept and scene["editor"] in kept


def test_an_in_place_save_into_the_swapped_out_file_after_the_check_comes_back(
    scene, vault: Path, start_op, tmp_path: Path, stage_files
) -> None:
    """The editor opened the note before the swap and writes through that handle after it:
    the write sees it before answering, puts those bytes back and answers conflict."""
    handle = open(vault / NOTE, "r+b")  # noqa: SIM115 - held open across the swap
    try:
        proc, paused = start_write(start_op, tmp_path, scene, "write.renamed:pause")
        paused.wait("write.renamed")
        handle.truncate(0)
        handle.write(scene["editor"])
        handle.flush()
        paused.go("write.renamed")
        code, answer = finish(proc)
    finally:
        handle.close()

    assert (code, answer["error"]) == (3, "conflict"), answer
    assert answer["current_revision"] == sha(scene["editor"])
    assert (vault / NOTE).read_bytes() == scene["editor"]
    assert stage_files() == []


def test_a_save_over_hoards_bytes_before_a_late_save_is_put_back_is_kept_too(
    scene, vault: Path, start_op, tmp_path: Path, open_hoard
) -> None:
    """Putting a late in-place save back is another swap: a save that landed over hoard's
    bytes before it is swapped back to the path and kept, as an editor may have read the
    late save in between and save from it over this one."""
    handle = open(vault / NOTE, "r+b")  # noqa: SIM115 - held open across the swap
    try:
        proc, paused = start_write(start_op, tmp_path, scene, "write.renamed:pause")
        paused.wait("write.renamed")
        handle.truncate(0)
        handle.write(scene["editor"])
        handle.flush()
        save_by_rename(vault, NOTE, scene["later"])  # over hoard's bytes at the path
        paused.go("write.renamed")
        code, answer = finish(proc)
    finally:
        handle.close()

    assert (code, answer["error"]) == (3, "conflict"), answer
    assert (vault / NOTE).read_bytes() == scene["later"]
    hoard = open_hoard()
    kept = [
        hoard.writes.retirement.history(revision_id=r.revision_id, caller=OWNER).content.encode()
        for r in hoard.writes.retirement.history(NOTE, caller=OWNER).revisions
        if r.reason == OUTSIDE_SAVE_KEPT
    ]
    assert scene["later"] in kept


def test_a_create_racing_an_editor_that_creates_the_same_note_leaves_the_editors_file(
    note_text, vault: Path, start_op, tmp_path: Path, stage_files
) -> None:
    folder = tmp_path / "pauses"
    folder.mkdir()
    rel = "tech/kettle.md"
    (vault / "tech").mkdir(exist_ok=True)
    mine = note_text("Kettle", "The person's kettle.").encode()
    proc = start_op(
        "write", "write.stage_fsync:pause", folder, path=rel, content=note_text("Kettle", "x")
    )
    paused = Paused(folder)
    paused.wait("write.stage_fsync")
    save_by_rename(vault, rel, mine)
    paused.go("write.stage_fsync")

    code, answer = finish(proc)

    assert (code, answer["error"]) == (3, "exists"), answer
    assert answer["current_revision"] == sha(mine)
    assert (vault / rel).read_bytes() == mine
    assert stage_files() == []


def test_a_crash_after_the_exchange_puts_the_swapped_out_save_back_at_startup(
    scene, vault: Path, start_op, tmp_path: Path, stage_files, open_hoard, verify_ledger
) -> None:
    spec = "write.stage_fsync:pause,write.exchanged"
    proc, paused = start_write(start_op, tmp_path, scene, spec)
    paused.wait("write.stage_fsync")
    save_by_rename(vault, NOTE, scene["editor"])
    paused.go("write.stage_fsync")
    code, _ = finish(proc)
    assert code == failpoints.EXIT_CODE
    assert (vault / NOTE).read_bytes() == scene["new"]  # the editor's save is at the stage name
    assert len(stage_files()) == 1

    hoard = open_hoard()

    assert (vault / NOTE).read_bytes() == scene["editor"]
    assert stage_files() == []
    kept = [
        hoard.writes.retirement.history(revision_id=r.revision_id, caller=OWNER).content.encode()
        for r in hoard.writes.retirement.history(NOTE, caller=OWNER).revisions
    ]
    assert scene["old"] in kept and scene["editor"] in kept
    assert "not_written" in [
        e.decision for e in hoard.writes.retirement.history(NOTE, caller=OWNER).events
    ]
    verify_ledger(hoard, NOTE)


def test_a_crash_after_a_swap_back_leaves_the_editors_save_and_startup_cleans_up(
    scene, vault: Path, start_op, tmp_path: Path, stage_files, open_hoard
) -> None:
    spec = "write.stage_fsync:pause,write.swapped_back"
    proc, paused = start_write(start_op, tmp_path, scene, spec)
    paused.wait("write.stage_fsync")
    save_in_place(vault, NOTE, scene["editor"])
    paused.go("write.stage_fsync")
    code, _ = finish(proc)
    assert code == failpoints.EXIT_CODE
    assert (vault / NOTE).read_bytes() == scene["editor"]

    hoard: Hoard = open_hoard()

    assert (vault / NOTE).read_bytes() == scene["editor"]
    assert stage_files() == []
    later = scene["later"].decode()
    assert hoard.writes.write(NOTE, later, sha(scene["editor"]), caller=OWNER).status == "written"


def test_without_renameat2_writes_fall_back_to_rename(
    scene, hoard: Hoard, vault: Path, monkeypatch, stage_files
) -> None:
    monkeypatch.setattr(exchange, "_renameat2", None)

    result = hoard.writes.write(NOTE, scene["new"].decode(), sha(scene["old"]), caller=OWNER)

    assert result.status == "written"
    assert (vault / NOTE).read_bytes() == scene["new"]
    assert stage_files() == []
