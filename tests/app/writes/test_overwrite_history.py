"""Every overwrite preserves the prior bytes in the ledger first, recoverable byte for byte; the
index reflects a write the moment it returns."""

from __future__ import annotations

import base64
import itertools

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


def test_two_overwrites_preserve_both_prior_revisions_byte_for_byte(
    hoard: Hoard, put, note_text, verify_ledger
) -> None:
    v1 = note_text("Kettle", "First words. Ünïcödé ✓, tabs\tand  spaces.").encode()
    v2 = note_text("Kettle", "Second words.\r\nWith a CRLF line.").encode()
    v3 = note_text("Kettle", "Third words.").encode()
    put("tech/kettle.md", v1)

    r2 = hoard.writes.write("tech/kettle.md", v2.decode(), sha(v1), caller=WRITER)
    r3 = hoard.writes.write("tech/kettle.md", v3.decode(), sha(v2), caller=WRITER)

    assert (r2.previous_revision, r2.revision) == (sha(v1), sha(v2))
    assert (r3.previous_revision, r3.revision) == (sha(v2), sha(v3))
    assert (hoard.vault.root / "tech" / "kettle.md").read_bytes() == v3
    history = hoard.writes.retirement.history("tech/kettle.md", caller=OWNER)
    assert [r.sha256 for r in history.revisions] == [sha(v1), sha(v2)]
    assert [r.size for r in history.revisions] == [len(v1), len(v2)]
    assert {r.caller for r in history.revisions} == {"writer"}
    for info, raw in zip(history.revisions, (v1, v2), strict=True):
        rev = hoard.writes.retirement.history(revision_id=info.revision_id, caller=OWNER)
        assert rev.path == "tech/kettle.md"
        assert rev.encoding == "utf-8"
        assert rev.content.encode("utf-8") == raw
        assert rev.sha256 == sha(raw)
        assert rev.size == len(raw)
    assert verify_ledger(hoard, "tech/kettle.md") == 2


def test_the_events_chain_every_write_from_create_to_the_last_overwrite(
    hoard: Hoard, note_text
) -> None:
    texts = [note_text("Chain", f"Version {i}.") for i in range(4)]
    hoard.writes.write("tech/chain.md", texts[0], caller=OWNER)
    for prev, new in itertools.pairwise(texts):
        hoard.writes.write("tech/chain.md", new, sha(prev.encode()), caller=OWNER)

    written = [
        e
        for e in hoard.writes.retirement.history("tech/chain.md", caller=OWNER).events
        if e.decision == "written"
    ]

    assert [(e.before, e.after) for e in written] == [
        (None if i == 0 else sha(texts[i - 1].encode()), sha(texts[i].encode())) for i in range(4)
    ]
    assert {e.tool for e in written} == {"vault_write"}
    assert all(e.at.endswith("Z") for e in written)


def test_bytes_that_are_not_utf8_are_preserved_exactly_as_base64(
    hoard: Hoard, put, note_text
) -> None:
    broken = note_text("Legacy", "caf\xe9").encode("latin-1")  # written by an old editor
    put("tech/legacy.md", broken)

    hoard.writes.write("tech/legacy.md", note_text("Legacy", "café"), sha(broken), caller=OWNER)

    [info] = hoard.writes.retirement.history("tech/legacy.md", caller=OWNER).revisions
    rev = hoard.writes.retirement.history(revision_id=info.revision_id, caller=OWNER)
    assert rev.encoding == "base64"
    assert base64.b64decode(rev.content) == broken
    assert rev.sha256 == sha(broken)


def test_a_written_note_is_found_by_search_right_after_the_write(
    hoard: Hoard, put, note_text
) -> None:
    put("tech/kettle.md", note_text("Kettle", "Boils water."))
    old = (hoard.vault.root / "tech" / "kettle.md").read_bytes()
    assert hoard.searching.search("zephyrwhistle", caller=OWNER).results == []

    hoard.writes.write(
        "tech/kettle.md", note_text("Kettle", "It has a zephyrwhistle."), sha(old), caller=OWNER
    )
    hoard.writes.write("tech/new.md", note_text("New", "A quokkaferry appears."), caller=OWNER)

    assert [h.path for h in hoard.searching.search("zephyrwhistle", caller=OWNER).results] == [
        "tech/kettle.md"
    ]
    assert [h.path for h in hoard.searching.search("quokkaferry", caller=OWNER).results] == [
        "tech/new.md"
    ]
    assert hoard.searching.search("boils", caller=OWNER).results == []


def test_a_created_note_has_no_preserved_revision_but_a_written_event(
    hoard: Hoard, note_text
) -> None:
    text = note_text("Fresh", "New.")

    hoard.writes.write("tech/fresh.md", text, caller=OWNER)

    history = hoard.writes.retirement.history("tech/fresh.md", caller=OWNER)
    assert history.revisions == []
    assert [(e.decision, e.before, e.after, e.caller) for e in history.events] == [
        ("written", None, sha(text.encode()), "owner")
    ]


def test_an_overwrite_keeps_the_mode_of_the_file(hoard: Hoard, put, note_text) -> None:
    path = put("tech/mode.md", note_text("Mode"))
    path.chmod(0o640)

    hoard.writes.write(
        "tech/mode.md", note_text("Mode", "v2"), sha(path.read_bytes()), caller=OWNER
    )

    assert path.stat().st_mode & 0o777 == 0o640
