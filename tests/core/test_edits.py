"""hoard.core.edits: every edit kind, table-driven, on the notes agents really meet."""

from __future__ import annotations

from typing import Any

import pytest

from hoard.core.edits import apply_edits, headings, parse_edits
from hoard.core.errors import Ambiguous, HoardError, InvalidArgument, NotFound
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter

FM = (
    "---\ntitle: Hue bridge\ntype: note\nstatus: draft\ntags: [home, net]\n"
    "updated: 2026-01-02\n---\n"
)
NOTE = (
    FM + "# Hue bridge\n\nIntro.\n\n## Setup\nStep one.\n\n### Detail\nDeep.\n\n## Notes\nLast.\n"
)


def run(text: str, *edits: dict[str, Any]) -> str:
    return apply_edits(text, parse_edits(list(edits)))


BODY_CASES = [
    (
        "append goes after the body's last text",
        NOTE,
        {"op": "append", "text": "More."},
        NOTE + "More.\n",
    ),
    (
        "append keeps trailing blank lines after the new text",
        "a\n\n\n",
        {"op": "append", "text": "b"},
        "a\nb\n\n\n",
    ),
    (
        "append stops before a Related block",
        FM + "Text.\n\nRelated:\n- [[x]]\n",
        {"op": "append", "text": "New."},
        FM + "Text.\nNew.\n\nRelated:\n- [[x]]\n",
    ),
    (
        "append to a note without a final newline keeps it without one",
        "no newline",
        {"op": "append", "text": "b"},
        "no newline\nb",
    ),
    (
        "append to an empty body",
        FM,
        {"op": "append", "text": "First."},
        FM + "First.\n",
    ),
    (
        "append after a closing fence with no newline",
        "---\na: 1\n---",
        {"op": "append", "text": "x"},
        "---\na: 1\n---\nx",
    ),
    (
        "append with CRLF writes CRLF lines",
        "a\r\nb\r\n",
        {"op": "append", "text": "c\nd"},
        "a\r\nb\r\nc\r\nd\r\n",
    ),
    (
        "append of a text ending in a newline adds no blank line",
        "a\n",
        {"op": "append", "text": "b\n"},
        "a\nb\n",
    ),
    (
        "prepend goes right after the frontmatter",
        NOTE,
        {"op": "prepend", "text": "> banner"},
        FM + "> banner\n" + NOTE[len(FM) :],
    ),
    (
        "prepend on a note without frontmatter goes first",
        "body\n",
        {"op": "prepend", "text": "top"},
        "top\nbody\n",
    ),
    (
        "prepend on an empty note without a newline",
        "",
        {"op": "prepend", "text": "x"},
        "x\n",
    ),
    (
        "append_to_section goes after the section's last text, subsections included",
        NOTE,
        {"op": "append_to_section", "heading": "Setup", "text": "Step two."},
        NOTE.replace("Deep.\n", "Deep.\nStep two.\n"),
    ),
    (
        "append_to_section of the last section",
        NOTE,
        {"op": "append_to_section", "heading": "Notes", "text": "- x"},
        NOTE + "- x\n",
    ),
    (
        "append_to_section of an empty section goes under its heading",
        "# T\n## A\n## B\n",
        {"op": "append_to_section", "heading": "A", "text": "x"},
        "# T\n## A\nx\n## B\n",
    ),
    (
        "replace_section replaces up to the next heading of the same level",
        NOTE,
        {"op": "replace_section", "heading": "Setup", "text": "Only this."},
        NOTE.replace("Step one.\n\n### Detail\nDeep.\n", "Only this.\n"),
    ),
    (
        "replace_section of a subsection stops at the next higher heading",
        NOTE,
        {"op": "replace_section", "heading": "Detail", "level": 3, "text": "Shallow."},
        NOTE.replace("Deep.", "Shallow."),
    ),
    (
        "replace_section with empty text empties it and keeps the heading",
        NOTE,
        {"op": "replace_section", "heading": "Notes", "text": ""},
        NOTE.replace("## Notes\nLast.\n", "## Notes\n"),
    ),
    (
        "replace_section of the last section without a final newline",
        "## A\nold",
        {"op": "replace_section", "heading": "A", "text": "new1\nnew2"},
        "## A\nnew1\nnew2",
    ),
    (
        "replace_section leaves the Related block alone",
        "## A\nold\n\nRelated:\n- [[x]]\n",
        {"op": "replace_section", "heading": "A", "text": "new"},
        "## A\nnew\n\nRelated:\n- [[x]]\n",
    ),
    (
        "headings match by text ignoring case, spacing and closing hashes",
        "## My   Tasks ##\n- a\n",
        {"op": "append_to_section", "heading": "my tasks", "text": "- b"},
        "## My   Tasks ##\n- a\n- b\n",
    ),
    (
        "a heading asked with its hashes gives its level",
        "# Log\nx\n## Log\ny\n",
        {"op": "append_to_section", "heading": "## Log", "text": "z"},
        "# Log\nx\n## Log\ny\nz\n",
    ),
    (
        "a heading inside a code fence is not a heading",
        "## Run\n```sh\n## Run\necho\n```\ntext\n",
        {"op": "append_to_section", "heading": "Run", "text": "more"},
        "## Run\n```sh\n## Run\necho\n```\ntext\nmore\n",
    ),
    (
        "a tilde fence hides headings too",
        "~~~\n# A\n~~~\n# A\nx\n",
        {"op": "replace_section", "heading": "A", "text": "y"},
        "~~~\n# A\n~~~\n# A\ny\n",
    ),
    (
        "Unicode headings match in NFC",
        "## Cafe\u0301 ☕\nold\n",
        {"op": "replace_section", "heading": "Café ☕", "text": "nový úkol"},
        "## Cafe\u0301 ☕\nnový úkol\n",
    ),
    (
        "section edits on a CRLF note",
        "## A\r\nx\r\n\r\n## B\r\ny\r\n",
        {"op": "append_to_section", "heading": "A", "text": "x2"},
        "## A\r\nx\r\nx2\r\n\r\n## B\r\ny\r\n",
    ),
    (
        "find_replace of one literal match",
        NOTE,
        {"op": "find_replace", "find": "Intro.", "replace": "Introduction (1+1)."},
        NOTE.replace("Intro.", "Introduction (1+1)."),
    ),
    (
        "find_replace treats regex characters literally",
        "a.b a*b\n",
        {"op": "find_replace", "find": "a*b", "replace": "$1"},
        "a.b $1\n",
    ),
    (
        "find_replace with an expected count replaces all of them",
        "x y x y x\n",
        {"op": "find_replace", "find": "x", "replace": "z", "expected_count": 3},
        "z y z y z\n",
    ),
    (
        "overlapping matches count once each, left to right",
        "aaa\n",
        {"op": "find_replace", "find": "aa", "replace": "b"},
        "ba\n",
    ),
    (
        "find_replace across lines on a CRLF note",
        "one\r\ntwo\r\n",
        {"op": "find_replace", "find": "one\ntwo", "replace": "1\n2"},
        "1\r\n2\r\n",
    ),
    (
        "find_replace with Unicode",
        "úkol: Smørrebrød\n",
        {"op": "find_replace", "find": "Smørrebrød", "replace": "smørrebrød 🥪"},
        "úkol: smørrebrød 🥪\n",
    ),
]


@pytest.mark.parametrize(
    ("text", "edit", "expected"),
    [c[1:] for c in BODY_CASES],
    ids=[c[0] for c in BODY_CASES],
)
def test_body_edits(text: str, edit: dict[str, Any], expected: str) -> None:
    assert run(text, edit) == expected


FM_COMMENTED = (
    "---\n"
    "# a comment that stays\n"
    "title: 'Quoted title'   # trailing comment\n"
    "type: note\n"
    "status: draft\n"
    "tags:\n"
    "  - home\n"
    "  - net\n"
    "\n"
    "# another comment\n"
    "updated: 2026-01-02\n"
    "nested:\n"
    "  a: 1\n"
    "  b: [x, y]\n"
    "---\n"
    "Body.\n"
)

FIELD_CASES = [
    (
        "set an existing field changes only its line",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"status": "active"}},
        FM_COMMENTED.replace("status: draft", "status: active"),
    ),
    (
        "set a new field adds it at the end of the block",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"priority": 2}},
        FM_COMMENTED.replace("---\nBody.", "priority: 2\n---\nBody."),
    ),
    (
        "a date string stays a plain date",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"updated": "2026-03-04"}},
        FM_COMMENTED.replace("2026-01-02", "2026-03-04"),
    ),
    (
        "a string that YAML would read as something else is quoted",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"status": "yes"}},
        FM_COMMENTED.replace("status: draft", 'status: "yes"'),
    ),
    (
        "a string with a colon is quoted",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"type": "a: b # c"}},
        FM_COMMENTED.replace("type: note", 'type: "a: b # c"'),
    ),
    (
        "a block list stays a block list",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"tags": ["home", "lab"]}},
        FM_COMMENTED.replace("  - net\n", "  - lab\n"),
    ),
    (
        "a nested mapping is replaced with its continuation lines",
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"nested": {"c": None}}},
        FM_COMMENTED.replace("nested:\n  a: 1\n  b: [x, y]\n", "nested: {c: null}\n"),
    ),
    (
        "remove a field and its continuation lines",
        FM_COMMENTED,
        {"op": "remove_fields", "keys": ["nested"]},
        FM_COMMENTED.replace("nested:\n  a: 1\n  b: [x, y]\n", ""),
    ),
    (
        "removing a missing field changes nothing",
        FM_COMMENTED,
        {"op": "remove_fields", "keys": ["nope"]},
        FM_COMMENTED,
    ),
    (
        "remove a block list keeps the blank line and comment after it",
        FM_COMMENTED,
        {"op": "remove_fields", "keys": ["tags"]},
        FM_COMMENTED.replace("tags:\n  - home\n  - net\n", ""),
    ),
    (
        "add_tags appends to a block list in its style",
        FM_COMMENTED,
        {"op": "add_tags", "tags": ["net", "#lab"]},
        FM_COMMENTED.replace("  - net\n", "  - net\n  - lab\n"),
    ),
    (
        "add_tags to a flow list",
        FM,
        {"op": "add_tags", "tags": ["zigbee"]},
        FM.replace("[home, net]", "[home, net, zigbee]"),
    ),
    (
        "remove_tags from a flow list",
        FM,
        {"op": "remove_tags", "tags": ["home", "absent"]},
        FM.replace("[home, net]", "[net]"),
    ),
    (
        "tags with diacritics",
        FM,
        {"op": "add_tags", "tags": ["úkol"]},
        FM.replace("[home, net]", "[home, net, úkol]"),
    ),
    (
        "adding tags that are all there changes nothing",
        FM,
        {"op": "add_tags", "tags": ["home"]},
        FM,
    ),
    (
        "a note without frontmatter gets a block when a field is set",
        "private text\n",
        {"op": "set_fields", "fields": {"mood": "ok"}},
        "---\nmood: ok\n---\nprivate text\n",
    ),
    (
        "tags on a note without frontmatter",
        "x",
        {"op": "add_tags", "tags": ["a"]},
        "---\ntags: [a]\n---\nx",
    ),
    (
        "remove_fields on a note without frontmatter changes nothing",
        "x\n",
        {"op": "remove_fields", "keys": ["a"]},
        "x\n",
    ),
    (
        "fields on a CRLF note keep CRLF",
        "---\r\ntitle: T\r\nstatus: a\r\n---\r\nBody\r\n",
        {"op": "set_fields", "fields": {"status": "b", "new": "c"}},
        "---\r\ntitle: T\r\nstatus: b\r\nnew: c\r\n---\r\nBody\r\n",
    ),
    (
        "a string tags field becomes a list",
        "---\ntags: a, b\n---\n",
        {"op": "add_tags", "tags": ["c"]},
        "---\ntags: [a, b, c]\n---\n",
    ),
    (
        "a key needing quotes is quoted",
        "---\na: 1\n---\n",
        {"op": "set_fields", "fields": {"two words": "x"}},
        '---\na: 1\n"two words": x\n---\n',
    ),
]


@pytest.mark.parametrize(
    ("text", "edit", "expected"),
    [c[1:] for c in FIELD_CASES],
    ids=[c[0] for c in FIELD_CASES],
)
def test_field_edits(text: str, edit: dict[str, Any], expected: str) -> None:
    assert run(text, edit) == expected


def _fm(text: str) -> dict[str, Any] | None:
    return parse_yaml_block(split_frontmatter(text).yaml_text).data


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "yes",
        "null",
        "1.5",
        "0x10",
        "a: b",
        "- x",
        "#x",
        " pad ",
        "multi\nline",
        "",
        "ünïcode ✓",
        "'q'",
        '"dq"',
        "[x]",
        7,
        1.25,
        True,
        None,
        ["a", "b c", "d,e"],
        {"k": [1, 2]},
    ],
)
def test_set_fields_round_trips_every_value_and_leaves_the_rest_byte_identical(
    value: Any,
) -> None:
    out = run(FM_COMMENTED, {"op": "set_fields", "fields": {"status": value}})
    data = _fm(out)
    assert data is not None
    assert data["status"] == value
    before, after = FM_COMMENTED.split("\n"), out.split("\n")
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
    assert len(before) == len(after)
    assert changed == [4]


def test_set_then_remove_returns_the_exact_bytes() -> None:
    out = run(
        FM_COMMENTED,
        {"op": "set_fields", "fields": {"extra": "x"}},
        {"op": "remove_fields", "keys": ["extra"]},
    )
    assert out == FM_COMMENTED


def test_edits_apply_in_order() -> None:
    out = run(
        "## A\n",
        {"op": "append_to_section", "heading": "A", "text": "one"},
        {"op": "find_replace", "find": "one", "replace": "two"},
        {"op": "append", "text": "three"},
    )
    assert out == "## A\ntwo\nthree\n"


REFUSALS = [
    (
        "a missing heading",
        NOTE,
        {"op": "append_to_section", "heading": "Nope", "text": "x"},
        NotFound,
    ),
    (
        "a heading at another level",
        NOTE,
        {"op": "replace_section", "heading": "Setup", "level": 3, "text": "x"},
        NotFound,
    ),
    (
        "a repeated heading",
        "## A\nx\n## A\ny\n",
        {"op": "replace_section", "heading": "A", "text": "z"},
        Ambiguous,
    ),
    (
        "zero matches",
        NOTE,
        {"op": "find_replace", "find": "absent", "replace": "x"},
        InvalidArgument,
    ),
    (
        "more matches than expected",
        "x x\n",
        {"op": "find_replace", "find": "x", "replace": "y"},
        InvalidArgument,
    ),
    (
        "fewer matches than expected",
        "x x\n",
        {"op": "find_replace", "find": "x", "replace": "y", "expected_count": 3},
        InvalidArgument,
    ),
    (
        "a frontmatter that does not parse",
        "---\na: [unclosed\n---\n",
        {"op": "set_fields", "fields": {"b": 1}},
        InvalidArgument,
    ),
    (
        "a layout the line model cannot edit",
        "---\n? complex\n: key\na: 1\n---\n",
        {"op": "set_fields", "fields": {"complex": 2}},
        InvalidArgument,
    ),
]


@pytest.mark.parametrize(
    ("text", "edit", "error"),
    [c[1:] for c in REFUSALS],
    ids=[c[0] for c in REFUSALS],
)
def test_refusals_name_the_edit(text: str, edit: dict[str, Any], error: type[HoardError]) -> None:
    with pytest.raises(error) as info:
        run(text, {"op": "append", "text": "fine"}, edit)
    obj = info.value.to_object()
    assert obj["edit"] == 1
    assert obj["op"] == edit["op"]
    assert obj["message"].startswith("edit 1 (")


def test_an_ambiguous_heading_lists_its_lines() -> None:
    with pytest.raises(Ambiguous) as info:
        run("## A\nx\n## A\ny\n", {"op": "replace_section", "heading": "A", "text": "z"})
    assert info.value.to_object()["lines"] == [0, 2]


def test_a_count_mismatch_reports_what_it_found() -> None:
    with pytest.raises(InvalidArgument) as info:
        run("x x\n", {"op": "find_replace", "find": "x", "replace": "y"})
    assert info.value.to_object()["found"] == 2


BAD_LISTS: list[tuple[str, object]] = [
    ("not a list", {"op": "append"}),
    ("empty", []),
    ("not an object", ["append"]),
    ("unknown op", [{"op": "delete"}]),
    ("missing text", [{"op": "append"}]),
    ("empty text", [{"op": "append", "text": ""}]),
    ("unknown key", [{"op": "append", "text": "x", "where": "top"}]),
    ("bad level", [{"op": "replace_section", "heading": "A", "level": 9, "text": ""}]),
    ("bool level", [{"op": "replace_section", "heading": "A", "level": True, "text": ""}]),
    ("zero count", [{"op": "find_replace", "find": "a", "replace": "b", "expected_count": 0}]),
    ("empty find", [{"op": "find_replace", "find": "", "replace": "b"}]),
    ("fields not an object", [{"op": "set_fields", "fields": ["a"]}]),
    ("empty fields", [{"op": "set_fields", "fields": {}}]),
    ("unwritable value", [{"op": "set_fields", "fields": {"a": float("nan")}}]),
    ("keys not strings", [{"op": "remove_fields", "keys": [1]}]),
    ("tags not a list", [{"op": "add_tags", "tags": "a"}]),
    ("too many", [{"op": "append", "text": "x"}] * 101),
]


@pytest.mark.parametrize(("raw"), [c[1] for c in BAD_LISTS], ids=[c[0] for c in BAD_LISTS])
def test_malformed_edit_lists_are_invalid_arguments(raw: object) -> None:
    with pytest.raises(InvalidArgument):
        parse_edits(raw)


def test_headings_skip_fences_and_need_a_space() -> None:
    lines = ["# A\n", "#tag\n", "````\n", "# B\n", "```\n", "# C\n", "````\n", "###### D ###\n"]
    assert headings(lines) == [(0, 1, "A"), (7, 6, "D")]


def test_a_failing_edit_leaves_no_partial_result() -> None:
    with pytest.raises(NotFound):
        run(
            NOTE,
            {"op": "append", "text": "x"},
            {"op": "append_to_section", "heading": "Z", "text": "y"},
        )
