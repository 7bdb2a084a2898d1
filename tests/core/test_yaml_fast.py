"""hoard.core.yaml_fast: the fast path must agree with the hardened loader whenever it answers."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hoard.core import frontmatter
from hoard.core.yaml_fast import parse_simple


def reference(yaml_text: str) -> frontmatter.Parsed:
    """What the hardened PyYAML loader says, with the fast path switched off."""
    with mock.patch.object(frontmatter, "parse_simple", lambda _text: None):
        return frontmatter.parse_yaml_block(yaml_text)


def assert_agrees(yaml_text: str) -> dict[str, Any] | None:
    fast = parse_simple(yaml_text)
    if fast is not None:
        ref = reference(yaml_text)
        assert ref.error is None, (yaml_text[:200], ref.error)
        assert ref.data == fast, yaml_text[:200]
        assert {k: type(v) for k, v in ref.data.items()} == {k: type(v) for k, v in fast.items()}
    return fast


# --- the subset it is meant to take -------------------------------------------------------

TYPICAL = (
    "title: Hue bridge setup\n"
    "type: reference\n"
    "status: active\n"
    "tags: [home, networking]\n"
    "aliases:\n"
    "  - Philips Hue\n"
    "  - 'hue hub'\n"
    'source: "https://example.com/a?b=c"\n'
    "updated: 2026-03-14\n"
    "empty:\n"
)


def test_typical_frontmatter_takes_the_fast_path_and_matches_the_loader() -> None:
    fast = assert_agrees(TYPICAL)
    assert fast == {
        "title": "Hue bridge setup",
        "type": "reference",
        "status": "active",
        "tags": ["home", "networking"],
        "aliases": ["Philips Hue", "hue hub"],
        "source": "https://example.com/a?b=c",
        "updated": "2026-03-14",
        "empty": None,
    }


def test_typical_frontmatter_with_crlf_takes_the_fast_path() -> None:
    assert assert_agrees(TYPICAL.replace("\n", "\r\n")) is not None


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "No",
        "on",
        "12",
        "-3",
        "+1",
        "0x1F",
        "0o17",
        "017",
        "1_000",
        "1.5",
        "1e3",
        ".inf",
        ".nan",
        "1:30",
        "null",
        "Null",
        "~",
        "=",
        "a: b",
        "a:",
        "#c",
        "a #c",
        "&x",
        "*x",
        "!t",
        "|",
        ">",
        "%x",
        "@x",
        "`x",
        "-",
        "- x",
        "?",
        "? x",
        "[a",
        "{a: b}",
        '"a\\"b"',
        '"tab\\t"',
        "'it''s'",
        "a\tb",
        "\u2028",
        "x\u00a0",
        "\u3000x",
    ],
)
def test_a_value_yaml_would_not_read_as_that_string_is_deferred_or_agrees(value: str) -> None:
    for text in (f"k: {value}\n", f"k:\n  - {value}\n", f"k: [{value}]\n"):
        assert_agrees(text)


@pytest.mark.parametrize(
    "text",
    [
        "# comment\ntitle: x\n",
        "title: x\ntitle: y\n",
        "yes: x\n",
        "meta:\n  a: b\n",
        "a: b\n  c\n",
        "k:\n  - a\n   - b\n",
        "k: v\n- a\n",
        "- a\n",
        "a: &x b\n",
        "k: [a, b,]\n",
        "k: [a] b\n",
        "'quoted key': v\n",
        "a: b\rc: d\n",
        "\ufeffa: b\n",
        "k:v\n",
        "k: 1.5\n",
    ],
)
def test_input_outside_the_subset_is_deferred(text: str) -> None:
    assert parse_simple(text) is None


def test_a_very_long_flow_list_agrees_with_the_loader() -> None:
    # The loader refuses more than MAX_NODES nodes (yaml_too_complex); the fast path must not
    # accept what the loader refuses.
    assert_agrees("tags: [" + ", ".join(["x"] * 6000) + "]\n")


# --- the property -------------------------------------------------------------------------

_KEYS = st.sampled_from(
    ["title", "type", "status", "tags", "updated", "a", "b_c", "x-y", "K9", "yes", "null", "on"]
)
_WORDS = st.sampled_from(
    [
        "hello",
        "Hue bridge",
        "kebab-case",
        "naïve café",
        "x:y",
        "a,b",
        "a]b",
        "a}b",
        "http://x.y/z",
        "C++",
        "it's",
        "50%",
        "a - b",
        "a-",
        "a?",
        "a!",
        "1st",
        "v1.2.3",
        "2026-03",
        "ja 日本語",
        "x\u00a0",
    ]
)
_SPOILERS = st.sampled_from(
    [
        "yes",
        "12",
        "1.5",
        "null",
        "~",
        "a: b",
        "#c",
        "&x",
        "*x",
        "!t",
        "2026-03-14",
        " x",
        "x ",
        "\tx",
        "x\t",
        "",
        "True",
        "Off",
        "0x10",
        "1:30",
        ".inf",
        "-",
        "- x",
        "?",
        "|",
        ">",
        "%x",
        "@x",
        "`x",
        "[a",
        "a]",
        "{a}",
        "=",
        "<<",
        "a #b",
        "a#b",
        "+1",
        "007",
        "1_000",
        "'",
        '"',
        "\\",
        ",",
        ":",
        "x:",
        "2026-03-14 10:00:00",
    ]
)
_SCALAR = st.one_of(_WORDS, _SPOILERS)


@st.composite
def _quoted(draw: st.DrawFn) -> str:
    inner = draw(_SCALAR)
    quote = draw(st.sampled_from(["'", '"']))
    return quote + inner + quote


_VALUE = st.one_of(_SCALAR, _quoted())


@st.composite
def _entry(draw: st.DrawFn) -> str:
    key = draw(_KEYS)
    kind = draw(st.sampled_from(["plain", "flow", "block", "empty"]))
    sep = draw(st.sampled_from([": ", ":  ", ":"]))
    trail = draw(st.sampled_from(["", " ", "  "]))
    if kind == "plain":
        return f"{key}{sep}{draw(_VALUE)}{trail}\n"
    if kind == "flow":
        items = draw(st.lists(_VALUE, max_size=4))
        joiner = draw(st.sampled_from([", ", ",", " , "]))
        return f"{key}{sep}[{joiner.join(items)}]{trail}\n"
    if kind == "empty":
        return f"{key}:{trail}\n"
    items = draw(st.lists(_VALUE, min_size=1, max_size=4))
    consistent = draw(st.booleans())
    base = draw(st.integers(0, 3))
    lines = []
    for item in items:
        indent = base if consistent else draw(st.integers(0, 3))
        dash = draw(st.sampled_from(["- ", "-  ", "-"])) if not consistent else "- "
        lines.append(" " * indent + dash + item + trail + "\n")
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "\n")
    return f"{key}:\n" + "".join(lines)


_BLOCK = st.lists(_entry(), max_size=6).map("".join)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(_BLOCK, st.booleans())
@example("tags: [home, net]\nupdated: 2026-03-14\n", False)
@example("k: ' x'\n", False)
@example("k:\n- a\n- b\n", True)
@example("title: [x\u00a0]\n", False)
def test_whenever_the_fast_path_answers_it_equals_the_hardened_loader(
    block: str, crlf: bool
) -> None:
    assert_agrees(block.replace("\n", "\r\n") if crlf else block)


@settings(max_examples=300)
@given(st.text(alphabet="ab: -[],'\"#&*!?\n\t\r1.~yes", max_size=60))
def test_on_random_yaml_like_text_the_fast_path_never_disagrees(text: str) -> None:
    assert_agrees(text)
