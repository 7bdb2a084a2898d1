"""Crash safety: a real process dies (``os._exit(97)``) at every named failpoint of the write
path; the vault is never torn, startup sweeps the debris and finishes (or reports) journaled
transactions, and the ledger still verifies. Injected I/O errors fail the request and keep the
old bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.fs import failpoints
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import sha

NOTE = "tech/lamp.md"
INDEX = "tech/_INDEX.md"

# What the note must be right after the process died at each point: the old bytes until the
# rename (or link, or unlink) happened, the new state after it.
AFTER_CRASH = {
    "write.locked": "old",
    "write.preserved": "old",
    "write.staged": "old",
    "write.stage_fsync": "old",
    "write.exchanged": "new",
    "write.renamed": "new",
    "write.dir_fsync": "new",
    "write.indexed": "new",
    "archive.locked": "old",
    "archive.preserved": "old",
    "archive.unlinked": "new",  # gone
    "restore.staged": "old",  # still absent
    "restore.stage_fsync": "old",
    "restore.linked": "new",  # recreated
}
LEAVES_A_STAGE_FILE = {
    p for p in failpoints.POINTS if p.endswith((".staged", ".stage_fsync", ".exchanged"))
}


def read(vault: Path, rel: str) -> bytes | None:
    p = vault / rel
    return p.read_bytes() if p.exists() else None


def transaction_ids(hoard: Hoard) -> list[str]:
    with hoard.ledger.read() as conn:
        return [row[0] for row in conn.execute("SELECT txn_id FROM transactions ORDER BY at")]


def preserved_contents(hoard: Hoard, rel: str) -> list[bytes]:
    return [
        hoard.writes.retirement.history(revision_id=r.revision_id, caller=OWNER).content.encode(
            "utf-8"
        )
        for r in hoard.writes.retirement.history(rel, caller=OWNER).revisions
    ]


@pytest.fixture
def scene(put, note_text, index_text) -> dict[str, bytes]:
    """An existing note (not yet in its folder's index) and the index; the new bytes of both."""
    old = note_text("Lamp", "Old words about the lamp.").encode()
    new = note_text("Lamp", "New words: a glimmerquartz lamp.").encode()
    old_index = index_text("- [[desk]]").encode()
    put(NOTE, old)
    put(INDEX, old_index)
    return {
        "old": old,
        "new": new,
        "old_index": old_index,
        "new_index": old_index + b"- [[lamp]]\n",
    }


@pytest.fixture
def index_text(note_text) -> Callable[[str], str]:
    return lambda body: note_text("Tech index", body, type="index", tags=("index", "tech"))


def crash(run_op, point: str, **kwargs: Any) -> None:
    code, out, err = run_op(failpoint=point, **kwargs)
    assert code == failpoints.EXIT_CODE, (
        f"the operation did not reach {point} (exit {code}): {out} {err[-2000:]}"
    )


@pytest.mark.parametrize("point", failpoints.POINTS)
def test_a_crash_at_any_failpoint_never_tears_the_vault_and_startup_cleans_up(
    point: str,
    scene: dict[str, bytes],
    vault: Path,
    state_dir: Path,
    run_op,
    open_hoard,
    stage_files,
    verify_ledger,
    snap,
) -> None:
    old, new = scene["old"], scene["new"]
    kind = point.split(".")[0]
    if kind == "write":
        crash(
            run_op, point, op="write", path=NOTE, content=new.decode(), expected_revision=sha(old)
        )
        states = {"old": old, "new": new}
    elif kind == "archive":
        crash(
            run_op,
            point,
            op="retirement.archive",
            path=NOTE,
            reason="archived",
            expected_revision=sha(old),
        )
        states = {"old": old, "new": None}
    elif kind == "restore":
        with Hoard(vault, state_dir) as h:
            revision_id = h.writes.retirement.archive(
                NOTE, "archived", sha(old), caller=OWNER
            ).revision_id
        crash(run_op, point, op="retirement.restore", revision_id=revision_id)
        states = {"old": None, "new": old}
    else:
        crash(
            run_op,
            point,
            op="notes.file_note",
            path=NOTE,
            content=new.decode(),
            expected_revision=sha(old),
        )
        states = {"old": old, "new": new}

    # Right after the crash: each file is exactly its old or its new state, nothing else.
    note_now = read(vault, NOTE)
    assert note_now in states.values(), f"torn note after a crash at {point}: {note_now!r}"
    if kind != "txn":
        assert note_now == states[AFTER_CRASH[point]]
    else:
        assert read(vault, INDEX) in (scene["old_index"], scene["new_index"])
    if point in LEAVES_A_STAGE_FILE:
        assert stage_files(), f"a crash at {point} should leave a stage file to sweep"

    hoard = open_hoard()

    assert stage_files() == []
    if kind == "txn":  # the intent is durable before txn.intent: startup completes it
        assert read(vault, NOTE) == new
        assert read(vault, INDEX) == scene["new_index"]
        [txn_id] = transaction_ids(hoard)
        settled = (snap(NOTE), snap(INDEX))
        for _ in range(2):  # recovery is idempotent
            [item] = hoard.writes.notes.recover(txn_id, caller=OWNER).transactions
            assert (item.transaction_id, item.state) == (txn_id, "done")
        assert (snap(NOTE), snap(INDEX)) == settled
        assert hoard.writes.notes.recover(caller=OWNER).transactions == []
    else:
        assert read(vault, NOTE) == note_now
    # Nothing is lost: whatever the file lost is in the ledger, and the ledger verifies.
    if read(vault, NOTE) != old:
        assert old in preserved_contents(hoard, NOTE)
    if kind == "txn":
        assert scene["old_index"] in preserved_contents(hoard, INDEX)
        verify_ledger(hoard, INDEX)
    verify_ledger(hoard, NOTE)
    # The index caught up with the files at startup, and the vault is writable again.
    found = [h.path for h in hoard.searching.search("glimmerquartz", caller=OWNER).results]
    assert found == ([NOTE] if read(vault, NOTE) == new else [])
    current = read(vault, NOTE)
    final = b"---\ntitle: Lamp\ntype: note\nstatus: active\ntags: [alpha, beta]\n"
    final += b"updated: 2026-03-02\n---\nAfter the crash.\n"
    expected = None if current is None else sha(current)
    assert hoard.writes.write(NOTE, final.decode(), expected, caller=OWNER).status == "written"
    assert read(vault, NOTE) == final


@pytest.mark.parametrize("point", ["txn.intent", "txn.note.renamed", "txn.index.staged"])
def test_a_crashed_file_note_that_creates_its_note_is_completed_at_startup(
    point: str, put, note_text, index_text, vault, run_op, open_hoard, stage_files
) -> None:
    old_index = index_text("- [[desk]]").encode()
    put(INDEX, old_index)
    new = note_text("Kettle", "Boils water.")

    crash(run_op, point, op="notes.file_note", path="tech/kettle.md", content=new)
    assert read(vault, "tech/kettle.md") in (None, new.encode())
    open_hoard()

    assert read(vault, "tech/kettle.md") == new.encode()
    assert read(vault, INDEX) == old_index + b"- [[kettle]]\n"
    assert stage_files() == []


def test_a_transaction_whose_file_moved_meanwhile_is_reported_stuck_and_not_overwritten(
    scene: dict[str, bytes], vault: Path, run_op, open_hoard, put, snap
) -> None:
    crash(
        run_op,
        "txn.note.renamed",
        op="notes.file_note",
        path=NOTE,
        content=scene["new"].decode(),
        expected_revision=sha(scene["old"]),
    )
    assert read(vault, NOTE) == scene["new"]
    assert read(vault, INDEX) == scene["old_index"]
    by_hand = scene["old_index"] + b"- [[shelf]] added by hand\n"
    put(INDEX, by_hand)
    edited = snap(INDEX)

    hoard = open_hoard()  # startup tries, and must leave the hand edit alone

    assert snap(INDEX) == edited
    [txn_id] = transaction_ids(hoard)
    for _ in range(2):
        [item] = hoard.writes.notes.recover(txn_id, caller=OWNER).transactions
        assert (item.transaction_id, item.state) == (txn_id, "stuck")
        assert INDEX in (item.detail or "")
        assert snap(INDEX) == edited
    assert [t.state for t in hoard.writes.notes.recover(caller=OWNER).transactions] == ["stuck"]
    assert "stuck" in [
        e.decision for e in hoard.writes.retirement.history(INDEX, caller=OWNER).events
    ]
    assert read(vault, NOTE) == scene["new"]


def test_recovering_an_unknown_transaction_is_not_found(hoard: Hoard) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.notes.recover("nosuchtxn", caller=OWNER)

    assert getattr(info.value, "code", None) == "not_found"


# -- injected I/O errors (in-process) ------------------------------------------------------------


@pytest.mark.parametrize("point", ["write.staged", "write.stage_fsync", "write.dir_fsync"])
def test_an_io_error_while_writing_fails_with_io_error_and_keeps_the_old_bytes(
    point: str, scene, hoard: Hoard, monkeypatch, refuse, stage_files, vault
) -> None:
    old, new = scene["old"], scene["new"]
    monkeypatch.setenv(failpoints.ENV, f"{point}:error")

    refuse(hoard, "io_error", NOTE, hoard.writes.write, NOTE, new.decode(), sha(old))

    assert read(vault, NOTE) == old
    assert stage_files() == []
    monkeypatch.delenv(failpoints.ENV)
    assert hoard.writes.write(NOTE, new.decode(), sha(old), caller=OWNER).status == "written"
    assert read(vault, NOTE) == new


def test_an_io_error_while_restoring_creates_nothing(
    scene, hoard: Hoard, monkeypatch, stage_files, vault
) -> None:
    archived = hoard.writes.retirement.archive(NOTE, "archived", sha(scene["old"]), caller=OWNER)
    monkeypatch.setenv(failpoints.ENV, "restore.stage_fsync:error")

    with pytest.raises(Exception) as info:
        hoard.writes.retirement.restore(archived.revision_id, caller=OWNER)

    assert getattr(info.value, "code", None) == "io_error"
    assert read(vault, NOTE) is None
    assert stage_files() == []


def test_an_io_error_while_filing_changes_nothing_or_hands_back_a_recoverable_transaction(
    scene, hoard: Hoard, monkeypatch, vault
) -> None:
    """SPEC: nothing changed, or a transaction_id that vault_recover completes; never a note
    without its index line and no way to finish it."""
    monkeypatch.setenv(failpoints.ENV, "txn.index.stage_fsync:error")

    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note(
            NOTE, scene["new"].decode(), None, sha(scene["old"]), caller=OWNER
        )

    monkeypatch.delenv(failpoints.ENV)
    error = info.value.to_object()
    assert error["error"] == "io_error"
    changed = (read(vault, NOTE), read(vault, INDEX)) != (scene["old"], scene["old_index"])
    if changed:
        assert "transaction_id" in error, (
            f"the note was written, the index was not, and the error gives no transaction: {error}"
        )
        [item] = hoard.writes.notes.recover(error["transaction_id"], caller=OWNER).transactions
        assert item.state == "done"
        assert read(vault, INDEX) == scene["new_index"]


def test_a_write_interrupted_after_the_rename_is_reconciled_into_the_history_at_startup(
    scene: dict[str, bytes], run_op, open_hoard, vault
) -> None:
    """DESIGN section 3: an intent without an outcome is reconciled from the file's actual
    hash at startup, so the event history accounts for every change on disk."""
    crash(
        run_op,
        "write.renamed",
        op="write",
        path=NOTE,
        content=scene["new"].decode(),
        expected_revision=sha(scene["old"]),
    )
    assert read(vault, NOTE) == scene["new"]

    hoard = open_hoard()

    afters = [e.after for e in hoard.writes.retirement.history(NOTE, caller=OWNER).events]
    assert sha(scene["new"]) in afters, (
        f"the note changed to {sha(scene['new'])[:12]} but no event says so: {afters}"
    )
