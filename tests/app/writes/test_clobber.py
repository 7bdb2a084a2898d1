"""A save from an editor's stale buffer that replaces an agent's acknowledged write: hoard
cannot prevent it, but never loses the write. The bytes of every revision hoard writes are
kept in the ledger (once per content), the outside save is recorded with the revision it
replaced, and the owner's inbox shows both versions with a restore that goes through the
write gates. The editor here is the test writing the file directly, as an editor saves."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import Conflict, NotFound
from hoard.core.models import HistoryResult, RevisionContent
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha, wait_until, write_file

NOTE = "tech/lamp.md"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def texts(note_text: Callable[..., str]) -> dict[str, str]:
    return {
        "old": note_text("Lamp", "The lamp is in the hall."),
        "agent": note_text("Lamp", "The lamp is in the hall.\n\nIt takes a glimmerquartz bulb."),
        "stale": note_text("Lamp", "The lamp is in the hall, by the door."),
        "kept": note_text(
            "Lamp", "The lamp is in the hall, by the door.\n\nIt takes a glimmerquartz bulb."
        ),
    }


@pytest.fixture
def written(hoard: Hoard, put, texts: dict[str, str], writer: Caller) -> Hoard:
    """The note as the person had it, then the agent's acknowledged write over it."""
    put(NOTE, texts["old"])
    result = hoard.writes.write(NOTE, texts["agent"], digest(texts["old"]), caller=writer)
    assert result.status == "written"
    return hoard


def save_outside(hoard: Hoard, vault: Path, text: str) -> None:
    """Save as an editor does, then let the index notice it (as the watcher would)."""
    write_file(vault, NOTE, text)
    hoard.index.refresh_paths([NOTE])


def history(hoard: Hoard, **kw: object) -> HistoryResult:
    result = hoard.writes.retirement.history(caller=OWNER, **kw)  # type: ignore[arg-type]
    assert isinstance(result, HistoryResult)
    return result


def test_every_revision_hoard_writes_keeps_its_bytes_once_by_its_sha256(
    written: Hoard, texts: dict[str, str], writer: Caller
) -> None:
    agent, other = texts["agent"], texts["kept"]
    written.writes.write(NOTE, other, digest(agent), caller=writer)
    written.writes.write(NOTE, agent, digest(other), caller=writer)
    with written.ledger.read() as conn:  # on either engine
        rows = [
            (sha, bytes(raw)) for sha, raw in conn.execute("SELECT sha256, content FROM kept_bytes")
        ]
    expected = [(digest(agent), agent.encode()), (digest(other), other.encode())]
    assert sorted(rows) == sorted(expected)
    assert [k.revision_id for k in history(written, path=NOTE).kept] == [
        digest(agent),
        digest(other),
    ]


def test_a_stale_buffer_save_over_an_acknowledged_write_is_an_inbox_item_with_both_versions(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["stale"])
    [item] = written.clobbers.open(caller=OWNER)
    assert (item.path, item.written_by) == (NOTE, "writer")
    assert (item.written, item.written_text) == (digest(texts["agent"]), texts["agent"])
    assert (item.outside, item.outside_text) == (digest(texts["stale"]), texts["stale"])
    assert item.current == digest(texts["stale"])
    assert "-It takes a glimmerquartz bulb." in item.diff


def test_vault_history_lists_the_agents_write_and_the_outside_save_with_both_bytes(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["stale"])
    h = history(written, path=NOTE)
    outside = [e for e in h.events if e.decision == "edited_outside"]
    assert [(e.caller, e.before, e.after) for e in outside] == [
        ("outside", digest(texts["agent"]), digest(texts["stale"]))
    ]
    assert [(k.revision_id, k.reason, k.caller) for k in h.kept] == [
        (digest(texts["agent"]), "written", "writer"),
        (digest(texts["stale"]), "edited_outside", "outside"),
    ]
    for text in (texts["agent"], texts["stale"]):
        one = written.writes.retirement.history(revision_id=digest(text), caller=OWNER)
        assert isinstance(one, RevisionContent)
        assert (one.path, one.content, one.sha256) == (NOTE, text, digest(text))


def test_restoring_the_item_writes_the_agents_bytes_back_and_clears_it(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["stale"])
    [item] = written.clobbers.open(caller=OWNER)
    result = written.clobbers.restore(item.event_id, caller=OWNER)
    assert (result.status, result.revision) == ("written", digest(texts["agent"]))
    assert sha((vault / NOTE).read_bytes()) == digest(texts["agent"])
    assert written.clobbers.open(caller=OWNER) == []
    with pytest.raises(NotFound):
        written.clobbers.restore(item.event_id, caller=OWNER)
    # the outside save is preserved too: the restore was a write like any other
    assert digest(texts["stale"]) in {r.sha256 for r in history(written, path=NOTE).revisions}


def test_a_restore_after_the_note_changed_again_is_a_conflict_and_keeps_the_item(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["stale"])
    [item] = written.clobbers.open(caller=OWNER)
    write_file(vault, NOTE, texts["old"])
    with pytest.raises(Conflict):
        written.clobbers.restore(item.event_id, caller=OWNER)
    assert sha((vault / NOTE).read_bytes()) == digest(texts["old"])
    assert [c.event_id for c in written.clobbers.open(caller=OWNER)] == [item.event_id]


def test_dismissing_the_item_keeps_the_outside_save_and_both_revisions(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["stale"])
    [item] = written.clobbers.open(caller=OWNER)
    written.clobbers.dismiss(item.event_id, caller=OWNER)
    assert written.clobbers.open(caller=OWNER) == []
    assert sha((vault / NOTE).read_bytes()) == digest(texts["stale"])
    assert len(history(written, path=NOTE).kept) == 2
    with pytest.raises(NotFound):
        written.clobbers.dismiss(item.event_id, caller=OWNER)


def test_an_outside_save_that_keeps_the_writes_lines_is_recorded_but_no_inbox_item(
    written: Hoard, vault: Path, texts: dict[str, str]
) -> None:
    save_outside(written, vault, texts["kept"])
    assert written.clobbers.open(caller=OWNER) == []
    outside = [e for e in history(written, path=NOTE).events if e.decision == "edited_outside"]
    assert [(e.before, e.after) for e in outside] == [
        (digest(texts["agent"]), digest(texts["kept"]))
    ]


def test_a_save_over_an_older_write_than_the_clobber_window_makes_no_inbox_item(
    vault: Path, state_dir: Path, put, texts: dict[str, str], writer: Caller
) -> None:
    write_file(vault, "hoard.toml", "[writes]\nclobber_window_s = 0\n")
    put(NOTE, texts["old"])
    with Hoard(vault, state_dir) as h:
        h.writes.write(NOTE, texts["agent"], digest(texts["old"]), caller=writer)
        save_outside(h, vault, texts["stale"])
        assert h.clobbers.open(caller=OWNER) == []
        assert len(history(h, path=NOTE).kept) == 2


def test_hoards_own_writes_are_never_recorded_as_outside_saves(
    written: Hoard, texts: dict[str, str], writer: Caller
) -> None:
    written.writes.write(NOTE, texts["kept"], digest(texts["agent"]), caller=writer)
    written.index.sync()
    assert [e.decision for e in history(written, path=NOTE).events] == ["written", "written"]


def test_the_watcher_notices_a_stale_buffer_save_by_itself(
    open_hoard: Callable[..., Hoard], put, vault: Path, texts: dict[str, str], writer: Caller
) -> None:
    put(NOTE, texts["old"])
    h = open_hoard(watch=True)
    h.writes.write(NOTE, texts["agent"], digest(texts["old"]), caller=writer)
    write_file(vault, NOTE, texts["stale"])
    wait_until(lambda: len(h.clobbers.open(caller=OWNER)) == 1, timeout=10)
    assert h.clobbers.open(caller=OWNER)[0].outside_text == texts["stale"]
