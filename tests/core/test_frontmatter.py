"""hoard.core.frontmatter: finding the block and parsing it safely on hostile input."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hoard.core.frontmatter import (
    MAX_DEPTH,
    PARSE_CAP_BYTES,
    Parsed,
    parse_yaml_block,
    split_frontmatter,
)

REFUSAL_RULES = {
    "frontmatter_size",
    "yaml_syntax",
    "duplicate_key",
    "yaml_anchor",
    "yaml_alias",
    "merge_key",
    "custom_tag",
    "yaml_depth",
    "yaml_too_complex",
    "not_a_mapping",
}


def _refused(parsed: Parsed) -> str:
    assert parsed.data is None
    assert parsed.error is not None
    assert parsed.error.message
    return parsed.error.rule


def _billion_laughs(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        name, prev = chr(ord("a") + i), chr(ord("a") + i - 1)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


# --- split_frontmatter ----------------------------------------------------------------------


def test_a_leading_block_is_split_from_the_body() -> None:
    text = "---\ntitle: Hue\n---\n# Body\n"
    split = split_frontmatter(text)
    assert split.has_block
    assert split.yaml_text == "title: Hue\n"
    assert split.body == "# Body\n"
    assert split.block_bytes == len(b"---\ntitle: Hue\n---\n")
    assert text[split.body_offset :] == split.body


def test_a_byte_order_mark_before_the_opening_line_is_skipped() -> None:
    text = "\ufeff---\ntitle: Hue\n---\nbody\n"
    split = split_frontmatter(text)
    assert split.has_block
    assert split.yaml_text == "title: Hue\n"
    assert split.body == "body\n"
    assert text[split.body_offset :] == split.body


def test_crlf_delimiters_and_lines_split_and_parse() -> None:
    text = "---\r\ntitle: Hue\r\ntags:\r\n  - home\r\n  - net\r\n---\r\nbody\r\n"
    split = split_frontmatter(text)
    assert split.has_block
    assert split.body == "body\r\n"
    parsed = parse_yaml_block(split.yaml_text)
    assert parsed.error is None
    assert parsed.data == {"title": "Hue", "tags": ["home", "net"]}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---\ntitle: Hue\nbody without end\n", id="unterminated"),
        pytest.param("---\ntitle: Hue", id="unterminated-no-newline"),
        pytest.param("---", id="only-opening-line"),
        pytest.param("# Title\n---\ntitle: x\n---\n", id="block-not-at-start"),
        pytest.param("----\ntitle: x\n----\n", id="four-dashes"),
        pytest.param(" ---\ntitle: x\n---\n", id="indented-opening"),
        pytest.param("", id="empty"),
        pytest.param("plain text\n", id="plain-text"),
    ],
)
def test_text_without_a_terminated_leading_block_has_no_block(text: str) -> None:
    split = split_frontmatter(text)
    assert not split.has_block
    assert split.yaml_text == ""
    assert split.body == text
    assert split.block_bytes == 0


@pytest.mark.parametrize(
    ("text", "yaml_text", "body"),
    [
        ("---\n---\nbody\n", "", "body\n"),
        ("---  \ntitle: x\n--- \t\nbody\n", "title: x\n", "body\n"),
        ("---\ntitle: x\n...\nbody\n", "title: x\n", "body\n"),
        ("---\ntitle: x\n---", "title: x\n", ""),
        ("---\ntitle: x\n---\n", "title: x\n", ""),
        ("---\na: b\n---\nmore\n---\nbody\n", "a: b\n", "more\n---\nbody\n"),
    ],
)
def test_block_boundaries(text: str, yaml_text: str, body: str) -> None:
    split = split_frontmatter(text)
    assert split.has_block
    assert split.yaml_text == yaml_text
    assert split.body == body
    assert text[split.body_offset :] == body


@given(st.text(max_size=200))
@example("\ufeff---\na: b\n---\nbody")
@example("\ufeff")
def test_the_body_offset_always_points_at_the_body(text: str) -> None:
    split = split_frontmatter(text)
    assert text[split.body_offset :] == split.body
    if not split.has_block:
        assert split.block_bytes == 0


# --- parse_yaml_block: what it accepts -----------------------------------------------------


def test_a_simple_block_parses_to_a_mapping() -> None:
    parsed = parse_yaml_block("title: Hue bridge\ntags: [home, net]\nupdated: 2026-03-14\n")
    assert parsed.error is None
    assert parsed.data == {
        "title": "Hue bridge",
        "tags": ["home", "net"],
        "updated": "2026-03-14",
    }


@pytest.mark.parametrize(
    "yaml_text",
    [
        "updated: 2026-03-14\n",
        "updated: 2026-03-14  # a comment sends this to the full loader\n",
        "updated: !!str 2026-03-14\n",
        "meta: {updated: 2026-03-14}\n",
    ],
)
def test_a_date_stays_the_string_that_was_written(yaml_text: str) -> None:
    parsed = parse_yaml_block(yaml_text)
    assert parsed.error is None
    assert parsed.data is not None
    value = parsed.data["updated"] if "updated" in parsed.data else parsed.data["meta"]["updated"]
    assert value == "2026-03-14"
    assert type(value) is str


def test_a_timestamp_stays_a_string() -> None:
    parsed = parse_yaml_block("created: 2026-03-14 10:30:00\n")
    assert parsed.data == {"created": "2026-03-14 10:30:00"}


@pytest.mark.parametrize("yaml_text", ["", "\n\n", "# only a comment\n", "   \n"])
def test_an_empty_block_is_an_empty_mapping(yaml_text: str) -> None:
    parsed = parse_yaml_block(yaml_text)
    assert parsed.error is None
    assert parsed.data == {}


def test_moderate_nesting_below_the_depth_cap_parses() -> None:
    text = "".join("  " * i + f"k{i}:\n" for i in range(8)) + "  " * 8 + "leaf: v\n"
    parsed = parse_yaml_block(text)
    assert parsed.error is None
    node = parsed.data
    for i in range(8):
        assert node is not None
        node = node[f"k{i}"]
    assert node == {"leaf": "v"}


def test_standard_explicit_tags_are_allowed() -> None:
    parsed = parse_yaml_block("a: !!str 12\nb: !!int '7'\n")
    assert parsed.data == {"a": "12", "b": 7}


# --- parse_yaml_block: what it refuses ------------------------------------------------------


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    # Nine levels of nine-fold aliases: ~387 million strings if expanded. Refusing the first
    # anchor means the loader never gets there (if it did expand, this test would not finish).
    parsed = parse_yaml_block(_billion_laughs(9))
    assert _refused(parsed) in {"yaml_anchor", "yaml_alias"}


def test_an_anchor_alone_is_refused() -> None:
    assert _refused(parse_yaml_block("type: &t reference\n")) == "yaml_anchor"


def test_an_alias_alone_is_refused() -> None:
    assert _refused(parse_yaml_block("type: *t\n")) == "yaml_alias"


@pytest.mark.parametrize(
    "yaml_text",
    [
        pytest.param("a: " + "[" * 60_000, id="value"),
        pytest.param("[" * 60_000, id="bare"),
        pytest.param("{a: " * 15_000, id="flow-mappings"),
    ],
)
def test_sixty_kilobytes_of_open_brackets_are_refused_without_a_crash(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) in {"frontmatter_size", "yaml_depth"}


@pytest.mark.parametrize(
    "yaml_text",
    [
        pytest.param(
            "".join(" " * i + f"k{i}:\n" for i in range(100)) + " " * 100 + "v\n", id="maps"
        ),
        pytest.param("- " * 100 + "x\n", id="block-lists"),
        pytest.param("a: " + "[" * 100 + "]" * 100 + "\n", id="flow-lists"),
        pytest.param("a: " + "{b: " * 100 + "c" + "}" * 100 + "\n", id="flow-maps"),
        pytest.param("a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", id="just-over"),
    ],
)
def test_deep_nesting_is_refused_as_yaml_depth(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) == "yaml_depth"


def test_a_block_over_the_parse_cap_is_refused_unparsed() -> None:
    text = "notes: " + "x" * (PARSE_CAP_BYTES + 1) + "\n"
    assert _refused(parse_yaml_block(text)) == "frontmatter_size"


def test_sixty_kilobytes_of_plain_frontmatter_is_under_the_parse_cap_and_parses() -> None:
    # The contract's own 16 KiB cap is judged by check_contract, not by the parser.
    text = "notes: " + "x" * 60_000 + "\n"
    assert parse_yaml_block(text).data == {"notes": "x" * 60_000}


def test_too_many_nodes_are_refused() -> None:
    text = "a: [" + ", ".join(["1"] * 6000) + "]\n"  # numbers: the full loader judges this
    assert _refused(parse_yaml_block(text)) == "yaml_too_complex"


@pytest.mark.parametrize(
    "yaml_text",
    [
        "title: a\ntitle: b\n",
        "title: a\n'title': b\n",
        'title: a\n"title": b\n',
        "meta:\n  x: 1\n  x: 2\n",
        "a: {k: 1, k: 2}\n",
    ],
)
def test_a_duplicate_key_is_refused(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) == "duplicate_key"


def test_an_inline_merge_key_is_refused_as_merge_key() -> None:
    assert _refused(parse_yaml_block("<<: {a: 1}\nb: 2\n")) == "merge_key"


def test_a_merge_key_through_an_alias_is_refused() -> None:
    # A merge key normally needs an anchor and an alias; the anchor is met (and refused) first.
    rule = _refused(parse_yaml_block("base: &b {a: 1}\nx:\n  <<: *b\n  c: 2\n"))
    assert rule in {"merge_key", "yaml_anchor", "yaml_alias"}


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: !foo bar\n",
        "a: !!python/object:os.system x\n",
        "a: !!python/object/apply:os.system ['ls']\n",
        "a: !!python/name:os.system ''\n",
        "a: !<tag:example.com,2026:thing> x\n",
        "a: !!binary aGVsbG8=\n",
        "a: !!timestamp 2026-03-14\n",
        "!foo\nb: 1\n",
    ],
)
def test_a_custom_tag_is_refused(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) == "custom_tag"


@pytest.mark.parametrize(
    "yaml_text", ["- a\n- b\n", "just a sentence\n", "42\n", "[a, b]\n", "'quoted'\n"]
)
def test_a_block_that_is_not_a_mapping_is_refused(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) == "not_a_mapping"


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: [unclosed\n",
        "a: b: c\n",
        "a: 'unterminated\n",
        "\ta: b\n",
        "1: one\n",
        "? [a, b]\n: c\n",
        "a: =\n",
        "a: b\n---\nc: d\n",
    ],
)
def test_broken_yaml_is_refused_as_yaml_syntax(yaml_text: str) -> None:
    assert _refused(parse_yaml_block(yaml_text)) == "yaml_syntax"


_YAMLISH = st.text(alphabet="-:[]{}&*!|>'\"#%@`?,<= \n\t\rabk1.~\\", max_size=120)


@given(st.one_of(st.text(max_size=300), _YAMLISH))
@example(_billion_laughs(3))
@example("a: " + "[" * 500)
@example("\x00\ufeff\x85\u2028")
def test_parse_yaml_block_never_raises(text: str) -> None:
    parsed = parse_yaml_block(text)
    assert (parsed.data is None) != (parsed.error is None)
    if parsed.error is not None:
        assert parsed.error.rule in REFUSAL_RULES
    else:
        assert isinstance(parsed.data, dict)
        assert all(isinstance(k, str) for k in parsed.data)


@pytest.mark.parametrize("char", ["\x00", "\x1b"])
def test_a_character_yaml_cannot_read_is_a_refusal_not_an_exception(char: str) -> None:
    # PyYAML's Reader checks printability in its constructor; that must be caught too.
    assert _refused(parse_yaml_block(f"title: a{char}b\n")) in REFUSAL_RULES
