"""hoard.core.links: wikilink extraction, link keys and target resolution."""

from __future__ import annotations

import pytest

from hoard.core.links import (
    Resolution,
    extract_links,
    link_key,
    name_key,
    note_keys,
    pick_target,
    resolve_key,
)


def parts(text: str) -> list[tuple[str, str | None, str | None, bool, int]]:
    return [(ln.target, ln.heading, ln.alias, ln.embed, ln.line) for ln in extract_links(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [[hue-bridge]]", [("hue-bridge", None, None, False, 1)]),
        ("see [[tech/hue-bridge]]", [("tech/hue-bridge", None, None, False, 1)]),
        ("see [[hue-bridge|the bridge]]", [("hue-bridge", None, "the bridge", False, 1)]),
        ("see [[hue-bridge#Setup]]", [("hue-bridge", "Setup", None, False, 1)]),
        ("see [[hue-bridge#Setup|setup]]", [("hue-bridge", "Setup", "setup", False, 1)]),
        ("![[diagram.png]]", [("diagram.png", None, None, True, 1)]),
        ("![[hue-bridge#Setup]]", [("hue-bridge", "Setup", None, True, 1)]),
        ("[[ spaced target | spaced alias ]]", [("spaced target", None, "spaced alias", False, 1)]),
        ("[[a]] and [[b]]", [("a", None, None, False, 1), ("b", None, None, False, 1)]),
        ("[[Smørrebrød]]", [("Smørrebrød", None, None, False, 1)]),
        ("[[hue-bridge.md]]", [("hue-bridge.md", None, None, False, 1)]),
    ],
)
def test_wikilink_forms(
    text: str, expected: list[tuple[str, str | None, str | None, bool, int]]
) -> None:
    assert parts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("[[#Setup]]", id="self-heading"),
        pytest.param("[[#Setup|here]]", id="self-heading-alias"),
        pytest.param("[[]]", id="empty"),
        pytest.param("[[ ]]", id="blank"),
        pytest.param("[single]", id="single-brackets"),
        pytest.param("[[unclosed", id="unclosed"),
        pytest.param("[[a\nb]]", id="across-lines"),
        pytest.param("use `[[not-a-link]]` here", id="inline-code"),
        pytest.param("a `x` [[ `]] b`", id="inline-code-spans-the-brackets"),
        pytest.param("```\n[[in-fence]]\n```", id="backtick-fence"),
        pytest.param("~~~md\n[[in-fence]]\n~~~", id="tilde-fence"),
        pytest.param("```bash\n# [[x]]\n~~~\n[[still-in]]\n```", id="other-marker-inside"),
        pytest.param("   ```\n[[indented-fence]]\n```", id="indented-fence"),
        pytest.param("```\n[[unclosed-fence]]\n", id="unclosed-fence"),
    ],
)
def test_things_that_are_not_links(text: str) -> None:
    assert extract_links(text) == []


def test_a_link_in_double_backtick_inline_code_is_not_a_link() -> None:
    # CommonMark: ``code`` is a code span too (used when the code itself contains a backtick).
    assert extract_links("write ``[[target]]`` to link") == []


def test_links_outside_code_on_a_code_line_are_kept() -> None:
    assert parts("`code` then [[real]]") == [("real", None, None, False, 1)]


def test_links_after_a_closed_fence_count_again() -> None:
    text = "[[before]]\n```\n[[inside]]\n```\n[[after]]\n"
    assert [(t, line) for t, _, _, _, line in parts(text)] == [("before", 1), ("after", 5)]


def test_line_numbers_are_one_based_and_count_crlf_lines() -> None:
    text = "---\r\ntitle: x\r\n---\r\n\r\nsee [[one]]\r\n\r\nand ![[two|2]]\r\n"
    assert parts(text) == [("one", None, None, False, 5), ("two", None, "2", True, 7)]


@pytest.mark.parametrize(
    ("target", "key"),
    [
        ("Hue-Bridge", "hue-bridge"),
        ("tech/Hue-Bridge.md", "tech/hue-bridge"),
        ("tech/x.MD", "tech/x"),
        ("./tech/x.md", "tech/x"),
        ("/tech/x", "tech/x"),
        ("././x", "x"),
        ("  spaced  ", "spaced"),
        ("cafe\u0301", "caf\u00e9"),
        ("Århus", "århus"),
        ("x.md.md", "x.md"),
    ],
)
def test_link_key_normalises_case_unicode_extension_and_leading_slashes(
    target: str, key: str
) -> None:
    assert link_key(target) == key


def test_note_keys_are_the_path_key_and_the_stem_key() -> None:
    assert note_keys("Tech/Hue-Bridge.md") == ("tech/hue-bridge", "hue-bridge")
    assert note_keys("top.md") == ("top", "top")


def test_a_path_match_wins_over_a_stem_match() -> None:
    assert pick_target("tech/hue", "life", ["tech/hue.md"], ["life/hue.md"]) == "tech/hue.md"


def test_among_stem_matches_the_linking_notes_folder_wins() -> None:
    hits = ["a/hue.md", "life/deep/hue.md", "life/hue.md"]
    assert pick_target("hue", "life/deep", [], hits) == "life/deep/hue.md"


def test_among_stem_matches_outside_the_folder_the_shortest_path_wins() -> None:
    hits = ["projects/long/folder/hue.md", "tech/hue.md", "zz/hue.md"]
    assert pick_target("hue", "elsewhere", [], hits) == "zz/hue.md"


def test_equal_length_stem_matches_resolve_alphabetically() -> None:
    assert pick_target("hue", "x", [], ["bb/hue.md", "aa/hue.md"]) == "aa/hue.md"


def test_a_root_note_is_in_the_same_folder_as_a_root_link() -> None:
    assert pick_target("hue", "", [], ["a/hue.md", "hue.md"]) == "hue.md"


def test_a_path_style_key_that_matches_nothing_is_unresolved() -> None:
    assert pick_target("nowhere/hue", "", [], ["tech/hue.md"]) is None


def test_a_path_style_key_resolves_by_its_trailing_folders() -> None:
    hits = ["a/tech/hue.md", "b/other/hue.md"]
    assert pick_target("tech/hue", "", [], hits) == "a/tech/hue.md"


def test_no_hits_is_unresolved() -> None:
    assert pick_target("hue", "", [], []) is None


def test_a_name_key_folds_case_accents_and_spacing() -> None:
    assert name_key("  Café   ÜBER Lamp ") == name_key("cafe uber lamp") == "cafe uber lamp"


def test_a_file_name_wins_over_an_alias() -> None:
    assert resolve_key("hue", "", [], ["tech/hue.md"], ["b.md"]) == Resolution(
        "tech/hue.md", "name"
    )


def test_a_path_hit_says_it_resolved_by_path() -> None:
    assert resolve_key("tech/hue", "", ["tech/hue.md"], [], []).by == "path"


def test_an_alias_of_one_note_resolves_to_it() -> None:
    assert resolve_key("x", "", [], [], ["a.md", "a.md"]) == Resolution("a.md", "alias")


def test_an_alias_two_notes_share_resolves_to_neither_and_lists_both() -> None:
    assert resolve_key("x", "", [], [], ["b.md", "a.md"]) == Resolution(
        None, None, ("a.md", "b.md")
    )


def test_nothing_matching_is_broken_without_candidates() -> None:
    assert resolve_key("x", "", [], [], []) == Resolution(None)
