"""hoard.core.parts: sections and blocks of a note as exact byte ranges of the file."""

from __future__ import annotations

import pytest

from hoard.core.parts import block_span, has_part, section_span

NOTE = (
    "---\ntitle: Lamp\n---\n# Lamp\n\nIntro ^intro\n\n## Setup\nStep one.\n\n"
    "### Détail\nDeep.\n\n```\n## Not a heading\nx ^incode\n```\n\n## Log\n"
    "- bought\n- fixed it\n  on Monday ^fix\n- third\n\n| a | b |\n|---|---|\n\n^table\n"
)


def part(raw: bytes, span: tuple[int, int] | None) -> bytes:
    assert span is not None
    return raw[span[0] : span[1]]


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Setup", "## Setup\nStep one.\n\n### Détail\nDeep.\n\n```\n## Not a heading\n"
         "x ^incode\n```\n\n"),
        ("setup", "## Setup\nStep one.\n\n### Détail\nDeep.\n\n```\n## Not a heading\n"
         "x ^incode\n```\n\n"),
        ("DÉTAIL", "### Détail\nDeep.\n\n```\n## Not a heading\nx ^incode\n```\n\n"),
        ("Setup#Détail", "### Détail\nDeep.\n\n```\n## Not a heading\nx ^incode\n```\n\n"),
        ("## Log", "## Log\n- bought\n- fixed it\n  on Monday ^fix\n- third\n\n| a | b |\n"
         "|---|---|\n\n^table\n"),
    ],
)  # fmt: skip
def test_a_section_runs_from_its_heading_to_the_next_of_its_level(
    heading: str, expected: str
) -> None:
    raw = NOTE.encode()
    assert part(raw, section_span(raw, heading)).decode() == expected


def test_the_first_level_one_heading_holds_the_whole_note_below_it() -> None:
    raw = NOTE.encode()
    assert part(raw, section_span(raw, "lamp")) == raw[raw.index(b"# Lamp") :]


@pytest.mark.parametrize("heading", ["Not a heading", "Missing", "Log#Setup", "Title"])
def test_headings_in_code_fences_or_elsewhere_are_not_found(heading: str) -> None:
    assert section_span(NOTE.encode(), heading) is None


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("intro", "Intro ^intro\n"),
        ("^FIX", "- fixed it\n  on Monday ^fix\n"),
        ("table", "| a | b |\n|---|---|\n\n^table\n"),
    ],
)
def test_a_block_is_the_paragraph_or_list_item_it_ends(block: str, expected: str) -> None:
    raw = NOTE.encode()
    assert part(raw, block_span(raw, block)).decode() == expected


def test_a_block_id_inside_code_is_no_block() -> None:
    assert block_span(NOTE.encode(), "incode") is None
    assert block_span(NOTE.encode(), "nope") is None


def test_a_paragraph_block_starts_after_the_blank_line_above_it() -> None:
    raw = b"# T\nfirst line\nsecond line ^p\nafter\n"
    assert part(raw, block_span(raw, "p")) == b"first line\nsecond line ^p\n"


def test_crlf_notes_keep_their_line_ends_in_the_range() -> None:
    raw = NOTE.replace("\n", "\r\n").encode()
    assert part(raw, section_span(raw, "Détail")).startswith(b"### D\xc3\xa9tail\r\nDeep.\r\n")
    assert part(raw, block_span(raw, "fix")) == b"- fixed it\r\n  on Monday ^fix\r\n"


def test_byte_offsets_count_multibyte_characters_and_bad_bytes() -> None:
    head = "# Ünïcødé ✓\nα ^a\n\n".encode()
    zwei = "## Zwei\nβ\n".encode() + b"\xff\n"
    raw = head + zwei + "# Drei\nγ ^g\n".encode()
    assert part(raw, section_span(raw, "zwei")) == zwei
    assert part(raw, block_span(raw, "g")) == "γ ^g\n".encode()
    assert part(raw, section_span(raw, "ünïcødé ✓")) == head + zwei


def test_a_note_without_a_final_newline_ends_its_last_part_at_its_end() -> None:
    raw = b"# A\ntext ^end"
    assert part(raw, block_span(raw, "end")) == b"text ^end"
    assert section_span(raw, "A") == (0, len(raw))


@pytest.mark.parametrize(
    ("link_part", "exists"),
    [("^intro", True), ("^gone", False), ("Setup", True), ("Setup#Détail", True),
     ("Gone", False), ("", True)],
)  # fmt: skip
def test_a_links_part_exists_when_the_note_has_it(link_part: str, exists: bool) -> None:
    assert has_part(NOTE.encode(), link_part) is exists
