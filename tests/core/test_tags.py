"""hoard.core.tags: inline ``#tags`` in a note's body."""

from __future__ import annotations

import unicodedata

import pytest

from hoard.core.tags import inline_tags


@pytest.mark.parametrize(
    ("body", "tags"),
    [
        ("#idea at the start", ["idea"]),
        ("a #plain tag", ["plain"]),
        ("nested #home/lights and #a/b/c", ["home/lights", "a/b/c"]),
        ("unicode #café and #日本語", ["café", "日本語"]),
        ("punctuation #idea. #next, (#inner) #last!", ["idea", "next", "last"]),
        ("dashes and underscores #to-do #snake_case", ["to-do", "snake_case"]),
        ("a trailing slash #folder/ is dropped", ["folder"]),
        ("numbers are not tags: #123 #2026/05 but #y2026 is", ["y2026"]),
        ("twice #x and #x again", ["x"]),
    ],
)
def test_inline_tags_are_found_with_their_edges(body: str, tags: list[str]) -> None:
    assert inline_tags(body) == tags


@pytest.mark.parametrize(
    "body",
    [
        "# A heading\n## Another\n###### Deep",
        "```\n#not-a-tag in code\n```",
        "~~~python\nx = 1  #comment\n~~~",
        "inline `#code` only",
        "a url https://example.com/page#section and http://x.org/#frag",
        "a [link](https://example.com#anchor) and [[note#Heading]] and [[#local]]",
        "an entity &#123; and word#glued",
        "",
    ],
)
def test_nothing_else_is_an_inline_tag(body: str) -> None:
    assert inline_tags(body) == []


def test_a_tag_after_a_closed_fence_counts_again() -> None:
    assert inline_tags("```\n#inside\n```\nafter #outside") == ["outside"]


def test_a_decomposed_accent_is_read_as_its_composed_letter() -> None:
    assert inline_tags(unicodedata.normalize("NFD", "#café")) == ["café"]
