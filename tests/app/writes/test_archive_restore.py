"""vault_archive and vault_restore: no delete, only retirement with the exact bytes kept, and an
exclusive-create restore that brings them back byte for byte."""

from __future__ import annotations

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture
def lamp(put, note_text) -> bytes:
    raw = note_text("Lamp", "The desk lamp. Ünïcödé ✓\r\nand a CRLF line.").encode()
    put("tech/lamp.md", raw)
    return raw


def test_archive_then_history_then_restore_round_trips_the_exact_bytes(
    hoard: Hoard, lamp, vault, verify_ledger
) -> None:
    archived = hoard.writes.retirement.archive("tech/lamp.md", "archived", sha(lamp), caller=WRITER)

    assert (archived.status, archived.path, archived.reason) == (
        "archived",
        "tech/lamp.md",
        "archived",
    )
    assert archived.sha256 == sha(lamp)
    assert not (vault / "tech" / "lamp.md").exists()
    kept = hoard.writes.retirement.history(revision_id=archived.revision_id, caller=OWNER)
    assert kept.content.encode("utf-8") == lamp
    assert (kept.sha256, kept.size, kept.path) == (sha(lamp), len(lamp), "tech/lamp.md")
    assert verify_ledger(hoard, "tech/lamp.md") == 1

    restored = hoard.writes.retirement.restore(archived.revision_id, caller=WRITER)

    assert (restored.status, restored.path, restored.revision) == (
        "restored",
        "tech/lamp.md",
        sha(lamp),
    )
    assert (vault / "tech" / "lamp.md").read_bytes() == lamp


def test_restoring_over_an_existing_note_is_exists_and_changes_nothing(
    hoard: Hoard, lamp, refuse
) -> None:
    archived = hoard.writes.retirement.archive("tech/lamp.md", "archived", sha(lamp), caller=OWNER)
    hoard.writes.retirement.restore(archived.revision_id, caller=OWNER)

    exc = refuse(
        hoard, "exists", "tech/lamp.md", hoard.writes.retirement.restore, archived.revision_id
    )

    assert exc.to_object()["current_revision"] == sha(lamp)


def test_archive_with_a_wrong_expected_revision_is_a_conflict_and_the_file_stays(
    hoard: Hoard, lamp, refuse
) -> None:
    exc = refuse(
        hoard,
        "conflict",
        "tech/lamp.md",
        hoard.writes.retirement.archive,
        "tech/lamp.md",
        "archived",
        "0" * 64,
    )

    assert exc.to_object()["current_revision"] == sha(lamp)
    assert hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).revisions == []


@pytest.mark.parametrize(
    ("reason", "expected"),
    [("deleted", "x"), ("archived", ""), ("archived", None)],
    ids=["unknown-reason", "empty-revision", "no-revision"],
)
def test_archive_needs_a_known_reason_and_an_expected_revision(
    hoard: Hoard, lamp, snap, reason: str, expected: str | None
) -> None:
    before = snap("tech/lamp.md")

    with pytest.raises(Exception) as info:
        hoard.writes.retirement.archive(
            "tech/lamp.md", reason, sha(lamp) if expected == "x" else expected, caller=OWNER
        )

    assert getattr(info.value, "code", None) == "invalid_argument"
    assert snap("tech/lamp.md") == before


def test_archiving_a_missing_note_is_not_found(hoard: Hoard) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.retirement.archive("tech/ghost.md", "archived", "a" * 64, caller=OWNER)

    assert getattr(info.value, "code", None) == "not_found"


@pytest.mark.parametrize("reason", ["archived", "superseded", "retracted"])
def test_each_archive_reason_is_kept_on_the_revision_and_the_event(
    hoard: Hoard, lamp, reason: str
) -> None:
    archived = hoard.writes.retirement.archive("tech/lamp.md", reason, sha(lamp), caller=OWNER)

    history = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER)
    assert [r.reason for r in history.revisions] == [reason]
    last = history.events[-1]
    assert (last.tool, last.decision, last.before, last.after, last.reason) == (
        "vault_archive",
        reason,
        sha(lamp),
        None,
        archived.revision_id,
    )


def test_archive_lists_the_inbound_links_that_now_dangle(put, note_text, open_hoard, lamp) -> None:
    put("tech/desk.md", note_text("Desk", "Lit by the [[lamp]]."))
    put("life/room.md", note_text("Room", "See [[tech/lamp|the lamp]] and [[desk]]."))
    put("life/other.md", note_text("Other", "Nothing to see."))
    hoard = open_hoard()

    archived = hoard.writes.retirement.archive("tech/lamp.md", "retracted", sha(lamp), caller=OWNER)

    assert sorted(archived.inbound_links) == ["life/room.md", "tech/desk.md"]
    assert "lamp" in hoard.reading.links("tech/desk.md", caller=OWNER).broken
    assert "tech/lamp.md" not in [
        h.path for h in hoard.searching.search("lamp", caller=OWNER).results
    ]


def test_restore_to_another_path_recreates_the_bytes_there_only(hoard: Hoard, lamp, vault) -> None:
    archived = hoard.writes.retirement.archive(
        "tech/lamp.md", "superseded", sha(lamp), caller=OWNER
    )

    restored = hoard.writes.retirement.restore(
        archived.revision_id, "archives/2026/old-lamp.md", caller=OWNER
    )

    assert restored.path == "archives/2026/old-lamp.md"
    assert (vault / "archives" / "2026" / "old-lamp.md").read_bytes() == lamp
    assert not (vault / "tech" / "lamp.md").exists()
    [event] = hoard.writes.retirement.history("archives/2026/old-lamp.md", caller=OWNER).events
    assert (event.decision, event.after, event.reason) == (
        "restored",
        sha(lamp),
        archived.revision_id,
    )


def test_restore_of_an_overwritten_revision_brings_back_the_old_version_elsewhere(
    hoard: Hoard, lamp, note_text, vault
) -> None:
    hoard.writes.write("tech/lamp.md", note_text("Lamp", "Newer."), sha(lamp), caller=OWNER)
    [old] = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).revisions

    hoard.writes.retirement.restore(old.revision_id, "tech/lamp-v1.md", caller=OWNER)

    assert (vault / "tech" / "lamp-v1.md").read_bytes() == lamp


def test_restore_of_an_unknown_revision_is_not_found(hoard: Hoard, vault) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.retirement.restore("nosuchrevision", caller=OWNER)

    assert getattr(info.value, "code", None) == "not_found"


def test_restore_to_a_hostile_path_is_rejected(hoard: Hoard, lamp, tmp_path) -> None:
    archived = hoard.writes.retirement.archive("tech/lamp.md", "archived", sha(lamp), caller=OWNER)

    with pytest.raises(Exception) as info:
        hoard.writes.retirement.restore(archived.revision_id, "../escaped.md", caller=OWNER)

    assert getattr(info.value, "code", None) == "path_rejected"
    assert not (tmp_path / "escaped.md").exists()


def test_archive_and_restore_need_the_write_scope(hoard: Hoard, lamp, snap) -> None:
    reader = Caller("reader", frozenset({"read"}), "direct")
    archived = hoard.writes.retirement.archive("tech/lamp.md", "archived", sha(lamp), caller=OWNER)

    with pytest.raises(Exception) as info:
        hoard.writes.retirement.restore(archived.revision_id, caller=reader)

    assert getattr(info.value, "code", None) == "forbidden"
    assert snap("tech/lamp.md") is None


def test_archive_lists_inbound_links_to_a_note_created_outside_since_the_last_sync(
    put, note_text, open_hoard
) -> None:
    """The gates decide against the files as they are now; so does the inbound-link list."""
    put("tech/desk.md", note_text("Desk", "Lit by the [[lamp]]."))
    hoard = open_hoard()
    raw = note_text("Lamp", "Saved by an editor a moment ago.").encode()
    put("tech/lamp.md", raw)  # created outside hoard after startup; no search since

    archived = hoard.writes.retirement.archive("tech/lamp.md", "archived", sha(raw), caller=OWNER)

    assert archived.inbound_links == ["tech/desk.md"]
