"""The one-line account of a change (``summarize``): the frontmatter fields and the sections
it touched, and the bytes it added and removed."""

from __future__ import annotations

from hoard.core.change_summary import byte_delta, changed_fields, changed_sections, summarize

OLD = (
    "---\ntitle: Lamp\nstatus: active\ntags: [home, light]\n---\n"
    "Intro line.\n\n## Where\n\nIn the hall.\n\n## Bulbs\n\nWarm white.\n"
)


def test_a_change_names_the_fields_and_sections_it_touched_and_the_bytes() -> None:
    new = OLD.replace("status: active", "status: done").replace("In the hall.", "In the study.")
    line = summarize(OLD.encode(), new.encode())
    assert line == "fields status; sections Where; +27/-28 bytes"


def test_a_line_before_the_first_heading_is_the_top_section() -> None:
    new = OLD.replace("Intro line.", "Intro line, longer.")
    assert summarize(OLD.encode(), new.encode()) == "sections (top); +20/-12 bytes"


def test_an_added_section_is_named_by_its_own_heading() -> None:
    new = OLD + "## Cost\n\nTwelve euros.\n"
    assert changed_sections(OLD, new) == ["Cost"]
    assert byte_delta(OLD.encode(), new.encode()) == (len("## Cost\n\nTwelve euros.\n"), 0)


def test_past_four_names_the_rest_are_counted() -> None:
    old = "---\na: 1\nb: 1\nc: 1\nd: 1\ne: 1\nf: 1\n---\nBody.\n"
    new = "---\na: 2\nb: 2\nc: 2\nd: 2\ne: 2\nf: 2\n---\nBody.\n"
    assert changed_fields(old[4:-10], new[4:-10]) == ["a", "b", "c", "d", "e", "f"]
    assert summarize(old.encode(), new.encode()).startswith("fields a, b, c, d and 2 more; ")


def test_a_nested_value_changes_its_top_level_field() -> None:
    old = "tags:\n  - home\n  - light\ntitle: Lamp\n"
    assert changed_fields(old, old.replace("light", "lamp")) == ["tags"]


def test_creation_removal_and_no_change_are_said_plainly() -> None:
    assert summarize(None, b"abc") == "created (3 bytes)"
    assert summarize(b"abcd", None) == "removed (4 bytes)"
    assert summarize(b"same", b"same") == "no change to the bytes"
    assert summarize(None, None) == "no content"
