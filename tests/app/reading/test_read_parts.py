"""vault_read of one part of a note (a section or a block) and links to parts that are not
there: the part's bytes are exactly the file's bytes in the range the read names."""

from __future__ import annotations

import hashlib

import pytest

from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.policy import OWNER

BODY = (
    "# Lamp\r\n\r\nIntro.\r\n\r\n## Setup\r\nPlug in ✓.\r\n\r\n### Wiring\r\nRed to red.\r\n\r\n"
    "```\r\n## Fake\r\n```\r\n\r\n## Log\r\n- bought\r\n- fixed on Monday ^fix\r\n- third\r\n"
)


@pytest.fixture
def lamp(write_note):
    return write_note("tech/lamp.md", "Lamp", BODY)


@pytest.mark.parametrize(
    ("kw", "first_line"),
    [({"heading": "setup"}, "## Setup"), ({"heading": "Setup#wiring"}, "### Wiring"),
     ({"heading": "LOG"}, "## Log"), ({"block": "^fix"}, "- fixed on Monday ^fix")],
)  # fmt: skip
def test_a_part_read_is_exactly_the_files_bytes_in_its_range(lamp, open_hoard, kw, first_line):
    raw = lamp.read_bytes()
    r = open_hoard().reading.read("tech/lamp.md", caller=OWNER, **kw)
    assert r.part is not None
    assert r.content.encode() == raw[r.part.start : r.part.end]
    assert r.content.startswith(first_line + "\r\n")
    assert r.revision == hashlib.sha256(raw).hexdigest()
    assert r.size == len(raw) and r.offset == 0 and r.next_offset is None


def test_a_section_read_stops_at_the_next_heading_of_its_level(lamp, open_hoard):
    r = open_hoard().reading.read("tech/lamp.md", caller=OWNER, heading="Setup")
    assert r.content.endswith("```\r\n## Fake\r\n```\r\n\r\n")
    assert "## Log" not in r.content


def test_a_part_read_pages_from_the_parts_start(lamp, open_hoard):
    whole = open_hoard().reading.read("tech/lamp.md", caller=OWNER, heading="Setup")
    first = open_hoard().reading.read("tech/lamp.md", caller=OWNER, heading="Setup", max_bytes=10)
    assert first.truncated and first.next_offset == 10
    rest = open_hoard().reading.read(
        "tech/lamp.md", caller=OWNER, heading="Setup", offset=first.next_offset
    )
    assert first.content + rest.content == whole.content


@pytest.mark.parametrize(
    ("kw", "message"),
    [({"heading": "Fake"}, "has no heading 'Fake'"), ({"block": "gone"}, r"has no block \^gone")],
)
def test_a_missing_part_is_not_found_and_named(lamp, open_hoard, kw, message):
    with pytest.raises(NotFound, match=message):
        open_hoard().reading.read("tech/lamp.md", caller=OWNER, **kw)


def test_a_heading_and_a_block_together_are_refused(lamp, open_hoard):
    with pytest.raises(InvalidArgument):
        open_hoard().reading.read("tech/lamp.md", caller=OWNER, heading="Log", block="fix")


def test_links_to_a_missing_heading_or_block_are_broken(lamp, write_note, open_hoard):
    write_note(
        "log.md",
        "Log",
        "[[lamp#Setup]] [[lamp#^fix]] [[lamp#Gone]] [[lamp#^nope]] [[lamp#Setup#Wiring]]",
    )
    r = open_hoard().reading.links("log.md", caller=OWNER)
    broken = {o.heading: o.broken for o in r.outgoing}
    assert broken == {
        "Setup": False,
        "^fix": False,
        "Gone": True,
        "^nope": True,
        "Setup#Wiring": False,
    }
    assert all(o.resolved_path == "tech/lamp.md" for o in r.outgoing)
    assert r.broken == ["lamp#Gone", "lamp#^nope"]
