"""vault_read: exact bytes, revisions, byte ranges, the size ceiling, path safety."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from hoard.core.errors import InvalidArgument, NotFound, PathRejected
from hoard.core.policy import OWNER


def test_a_read_returns_the_whole_note_with_its_revision(write_note, open_hoard):
    path = write_note("tech/a.md", "Alpha", "Some body text.\n\nWith two paragraphs.")
    raw = path.read_bytes()

    r = open_hoard().reading.read("tech/a.md", caller=OWNER)

    assert r.path == "tech/a.md"
    assert r.content.encode("utf-8") == raw
    assert r.revision == hashlib.sha256(raw).hexdigest()
    assert r.size == len(raw)
    assert r.offset == 0
    assert r.next_offset is None
    assert r.truncated is False
    assert r.warnings == []


def test_the_frontmatter_is_parsed_into_a_dict(write_note, open_hoard):
    write_note("tech/a.md", "Alpha", "body", extra="aliases: [first, second]\n")

    fm = open_hoard().reading.read("tech/a.md", caller=OWNER).frontmatter

    assert fm == {
        "title": "Alpha",
        "type": "note",
        "status": "active",
        "tags": ["alpha", "beta"],
        "updated": "2026-03-01",
        "aliases": ["first", "second"],
    }


def test_a_note_without_frontmatter_reads_with_frontmatter_none(write_note, open_hoard):
    write_note("tech/plain.md", raw="# Just text\n")

    r = open_hoard().reading.read("tech/plain.md", caller=OWNER)

    assert r.frontmatter is None
    assert r.content == "# Just text\n"


def test_a_note_with_broken_yaml_still_reads(write_note, open_hoard):
    write_note("tech/bad.md", raw="---\ntitle: [unclosed\n---\nbody\n")

    r = open_hoard().reading.read("tech/bad.md", caller=OWNER)

    assert r.content == "---\ntitle: [unclosed\n---\nbody\n"
    assert r.frontmatter is None


def test_range_reads_stitch_back_to_the_whole_file(write_note, open_hoard):
    path = write_note(
        "tech/long.md", "Long", "\n".join(f"line {i} of the note" for i in range(500))
    )
    raw = path.read_bytes()
    h = open_hoard()

    parts: list[bytes] = []
    offset: int | None = 0
    revisions = set()
    while offset is not None:
        r = h.reading.read("tech/long.md", offset=offset, max_bytes=1000, caller=OWNER)
        assert r.offset == offset
        assert len(r.content.encode("utf-8")) <= 1000
        assert r.truncated is (r.next_offset is not None)
        parts.append(r.content.encode("utf-8"))
        revisions.add(r.revision)
        offset = r.next_offset

    assert b"".join(parts) == raw
    assert revisions == {hashlib.sha256(raw).hexdigest()}
    assert len(parts) == -(-len(raw) // 1000)


def test_a_range_read_reports_the_next_offset_and_truncated(write_note, open_hoard):
    path = write_note("tech/a.md", "Alpha", "x" * 500)
    size = path.stat().st_size
    h = open_hoard()

    first = h.reading.read("tech/a.md", max_bytes=100, caller=OWNER)
    last = h.reading.read("tech/a.md", offset=size - 10, caller=OWNER)
    at_end = h.reading.read("tech/a.md", offset=size, caller=OWNER)

    assert (first.next_offset, first.truncated, first.size) == (100, True, size)
    assert (last.next_offset, last.truncated, len(last.content)) == (None, False, 10)
    assert (at_end.content, at_end.next_offset, at_end.truncated) == ("", None, False)


def test_a_large_note_is_cut_at_the_256_kib_default_ceiling(write_note, open_hoard):
    path = write_note("tech/big.md", "Big", "a" * (300 * 1024))
    raw = path.read_bytes()
    h = open_hoard()

    first = h.reading.read("tech/big.md", caller=OWNER)
    asked_more = h.reading.read("tech/big.md", max_bytes=10 * 1024 * 1024, caller=OWNER)
    rest = h.reading.read("tech/big.md", offset=first.next_offset, caller=OWNER)

    assert len(first.content.encode()) == 256 * 1024
    assert first.truncated is True
    assert first.next_offset == 256 * 1024
    assert first.size == len(raw)
    assert len(asked_more.content.encode()) == 256 * 1024
    assert (first.content + rest.content).encode() == raw
    assert rest.next_offset is None


def test_offsets_never_split_a_multibyte_character(write_note, open_hoard):
    path = write_note("life/oe.md", "Øer", "ø" * 1000)
    raw = path.read_bytes()
    h = open_hoard()

    for step in (1001, 7, 3):
        parts: list[str] = []
        offset: int | None = 0
        while offset is not None:
            r = h.reading.read("life/oe.md", offset=offset, max_bytes=step, caller=OWNER)
            assert "\ufffd" not in r.content
            assert len(r.content.encode()) <= step
            parts.append(r.content)
            offset = r.next_offset
        assert "".join(parts).encode() == raw


def test_an_offset_inside_a_character_is_invalid_argument(write_note, open_hoard):
    path = write_note("life/oe.md", "Øer", "ø" * 100)
    inside = path.read_bytes().index("ø".encode()) + 1

    with pytest.raises(InvalidArgument):
        open_hoard().reading.read("life/oe.md", offset=inside, caller=OWNER)


def test_a_max_bytes_smaller_than_the_character_there_is_invalid_argument(write_note, open_hoard):
    path = write_note("life/oe.md", "Øer", "ø" * 100)
    at = path.read_bytes().index("ø".encode())

    with pytest.raises(InvalidArgument):
        open_hoard().reading.read("life/oe.md", offset=at, max_bytes=1, caller=OWNER)


@pytest.mark.parametrize(
    ("offset", "max_bytes"), [(-1, None), (0, 0), (0, -5), (True, None), ("0", None), (0, 1.5)]
)
def test_bad_offset_or_max_bytes_is_invalid_argument(write_note, open_hoard, offset, max_bytes):
    write_note("tech/a.md", "Alpha", "body")

    with pytest.raises(InvalidArgument):
        open_hoard().reading.read("tech/a.md", offset=offset, max_bytes=max_bytes, caller=OWNER)


def test_an_offset_past_the_end_is_invalid_argument(write_note, open_hoard):
    path = write_note("tech/a.md", "Alpha", "body")

    with pytest.raises(InvalidArgument):
        open_hoard().reading.read("tech/a.md", offset=path.stat().st_size + 1, caller=OWNER)


def test_a_missing_note_is_not_found(write_note, open_hoard):
    write_note("tech/a.md", "Alpha", "body")
    h = open_hoard()

    for path in ("tech/missing.md", "nowhere/missing.md", "tech/a.md/x.md"):
        with pytest.raises(NotFound):
            h.reading.read(path, caller=OWNER)


@pytest.mark.parametrize(
    "path",
    [
        "../x.md",
        "../vault/tech/a.md",
        "tech/../../x.md",
        "/etc/passwd",
        "/etc/passwd.md",
        "a\\b.md",
        ".git/config",
        ".obsidian/workspace.md",
        "tech/.hidden.md",
        "x\x00.md",
        "tech/a.json",  # a file hoard reads neither as a note nor as an attachment
        "",
        "tech/",
        "C:/x.md",
    ],
)
def test_a_hostile_path_is_rejected(write_note, open_hoard, path):
    write_note("tech/a.md", "Alpha", "body")

    with pytest.raises(PathRejected):
        open_hoard().reading.read(path, caller=OWNER)


def test_a_symlinked_note_is_rejected_even_when_it_points_inside_the_vault(
    vault, write_note, open_hoard
):
    write_note("tech/a.md", "Alpha", "body")
    os.symlink(vault / "tech" / "a.md", vault / "tech" / "link.md")
    os.symlink("a.md", vault / "tech" / "relative-link.md")
    h = open_hoard()

    for path in ("tech/link.md", "tech/relative-link.md"):
        with pytest.raises(PathRejected):
            h.reading.read(path, caller=OWNER)


def test_a_symlink_pointing_outside_the_vault_is_rejected(tmp_path, vault, write_note, open_hoard):
    secret = tmp_path / "secret.md"
    secret.write_text("top secret\n")
    write_note("tech/a.md", "Alpha", "body")
    os.symlink(secret, vault / "tech" / "escape.md")

    with pytest.raises(PathRejected):
        open_hoard().reading.read("tech/escape.md", caller=OWNER)


def test_a_note_reached_through_a_symlinked_folder_is_rejected(vault, write_note, open_hoard):
    write_note("tech/a.md", "Alpha", "body")
    os.symlink(vault / "tech", vault / "linked")

    with pytest.raises(PathRejected):
        open_hoard().reading.read("linked/a.md", caller=OWNER)


def test_a_fifo_named_like_a_note_is_rejected_without_hanging(vault, write_note, open_hoard):
    write_note("tech/a.md", "Alpha", "body")
    os.mkfifo(vault / "tech" / "x.md")
    h = open_hoard()
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            h.reading.read("tech/x.md", caller=OWNER)
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(timeout=5)

    assert not t.is_alive(), "read() blocked on a FIFO"
    assert isinstance(outcome[0], PathRejected)


def test_a_folder_named_like_a_note_is_rejected(vault, write_note, open_hoard):
    write_note("tech/a.md", "Alpha", "body")
    (vault / "tech" / "dir.md").mkdir()

    with pytest.raises((PathRejected, NotFound)):
        open_hoard().reading.read("tech/dir.md", caller=OWNER)


def test_a_path_is_nfc_normalised(write_note, open_hoard):
    import unicodedata

    write_note(unicodedata.normalize("NFC", "life/århus.md"), "Århus", "trip")

    r = open_hoard().reading.read(unicodedata.normalize("NFD", "life/århus.md"), caller=OWNER)

    assert r.path == unicodedata.normalize("NFC", "life/århus.md")


def test_an_ignored_note_is_not_found(vault, write_note, open_hoard):
    (vault / "hoard.toml").write_text('ignore = ["drafts/**"]\n', encoding="utf-8")
    write_note("drafts/d.md", "Draft", "body")

    with pytest.raises(NotFound):
        open_hoard().reading.read("drafts/d.md", caller=OWNER)


def test_a_note_that_is_not_utf8_reads_with_a_warning(write_note, open_hoard):
    write_note("tech/latin1.md", raw=b"---\ntitle: Latin\n---\nCaf\xe9\n")

    r = open_hoard().reading.read("tech/latin1.md", caller=OWNER)

    assert "\ufffd" in r.content
    assert [w["kind"] for w in r.warnings] == ["encoding"]
    assert r.revision == hashlib.sha256(b"---\ntitle: Latin\n---\nCaf\xe9\n").hexdigest()


def test_a_note_whose_file_name_is_stored_decomposed_is_readable_by_its_nfc_path(
    vault, write_note, open_hoard
):
    # Files synced from macOS often carry NFD names; a note's identity is the NFC path.
    import unicodedata

    nfd_name = unicodedata.normalize("NFD", "århus-trip.md")
    nfc_path = unicodedata.normalize("NFC", "life/århus-trip.md")
    write_note("life/" + nfd_name, "Trip", "a pangolin in Jutland")
    h = open_hoard()

    assert [e.path for e in h.reading.list("life", caller=OWNER).entries] == [nfc_path]
    assert h.reading.read(nfc_path, caller=OWNER).content.endswith("a pangolin in Jutland\n")
    assert [r.path for r in h.searching.search("pangolin", caller=OWNER).results] == [nfc_path]
    assert h.startup_report.failed == 0
