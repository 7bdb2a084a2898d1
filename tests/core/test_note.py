"""hoard.core.note: what hoard derives from a note's bytes."""

from __future__ import annotations

import hashlib

import pytest

from hoard.core.note import first_h1, parse_note, revision_of


def test_the_title_comes_from_the_frontmatter_first() -> None:
    doc = parse_note("tech/hue.md", b"---\ntitle: Hue bridge\n---\n# Another heading\n")
    assert doc.title == "Hue bridge"


def test_a_numeric_frontmatter_title_is_used_as_text() -> None:
    assert parse_note("x.md", b"---\ntitle: 1984\n---\nbody\n").title == "1984"


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        pytest.param(b"# Hue bridge\n\ntext\n", "Hue bridge", id="plain-h1"),
        pytest.param(b"---\ntype: ref\n---\n\n# From heading\n", "From heading", id="after-block"),
        pytest.param(b"---\ntitle: ''\n---\n# Fallback\n", "Fallback", id="empty-fm-title"),
        pytest.param(b"# Closed heading ##\n", "Closed heading", id="closing-hashes"),
        pytest.param(b"#\tTabbed\n", "Tabbed", id="tab"),
        pytest.param(b"# Title\r\nbody\r\n", "Title", id="crlf"),
        pytest.param(
            b"```bash\n# install the thing\napt install x\n```\n# Real title\n",
            "Real title",
            id="shell-comment-in-fence",
        ),
        pytest.param(
            b"~~~\n# not this\n```\n# nor this\n~~~\n# Real\n", "Real", id="nested-markers"
        ),
        pytest.param(b"## Section\n# Later title\n", "Later title", id="h2-skipped"),
        pytest.param(b"#hashtag\n# Title\n", "Title", id="hashtag-skipped"),
    ],
)
def test_without_a_frontmatter_title_the_first_h1_outside_code_is_the_title(
    raw: bytes, title: str
) -> None:
    assert parse_note("folder/stem.md", raw).title == title


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"just text\n", id="no-heading"),
        pytest.param(b"## Section\ntext\n", id="only-h2"),
        pytest.param(b"```bash\n# comment\n```\n", id="only-fenced-comment"),
        pytest.param(b"```\n# unclosed fence\n", id="unclosed-fence"),
        pytest.param(b"#hashtag\n", id="hashtag"),
        pytest.param(b"", id="empty"),
        pytest.param(b"---\ntitle: [a, b]\n---\ntext\n", id="list-title"),
    ],
)
def test_without_a_title_or_h1_the_file_stem_is_the_title(raw: bytes) -> None:
    assert parse_note("folder/My Stem.md", raw).title == "My Stem"


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"Intro prose first.\n\n# Process\n1. step\n", id="after-prose"),
        pytest.param(b"- a list item\n# Usage\n", id="after-a-list"),
        pytest.param(b"---\ntags: [x]\n---\nSome text.\n# Formal Definition\n", id="after-fm"),
    ],
)
def test_a_level_one_heading_after_prose_heads_a_section_not_the_note(raw: bytes) -> None:
    assert parse_note("Machine Learning/Gradient Descent.md", raw).title == "Gradient Descent"


def test_an_embed_or_tag_line_before_the_heading_still_leaves_it_the_title() -> None:
    raw = b"![[cover.png]]\n#idea #draft\n\n# Gradient Descent, explained\nText.\n"
    assert parse_note("ml/gd.md", raw).title == "Gradient Descent, explained"


def test_first_h1_ignores_level_two_headings_and_fenced_comments() -> None:
    assert first_h1("## Section\n```sh\n# comment\n```\n") is None


@pytest.mark.parametrize(
    ("fm", "aliases"),
    [
        ("aliases: [Philips Hue, hue hub]\n", ["Philips Hue", "hue hub"]),
        ("aliases:\n  - Philips Hue\n", ["Philips Hue"]),
        ("aliases: Philips Hue\n", ["Philips Hue"]),
        ("aliases: ''\n", []),
        ("aliases: [x, '', 3]\n", ["x", "3"]),
        ("other: y\n", []),
    ],
)
def test_aliases_are_collected(fm: str, aliases: list[str]) -> None:
    doc = parse_note("x.md", f"---\n{fm}---\nbody\n".encode())
    assert doc.aliases == aliases


def test_other_title_keys_are_collected_as_aliases() -> None:
    raw = b"---\naliases: [a]\nshort: b\n---\n"
    assert parse_note("x.md", raw, title_keys=("aliases", "short")).aliases == ["a", "b"]


@pytest.mark.parametrize(
    ("fm", "tags"),
    [
        ("tags: [home, net]\n", ["home", "net"]),
        ("tags:\n  - home\n  - net\n", ["home", "net"]),
        ("tags: home, net\n", ["home", "net"]),
        ("tags: home net  lab\n", ["home", "net", "lab"]),
        ("tags: 'home,net'\n", ["home", "net"]),
        ("tags: {a: b}\n", []),
        ("other: x\n", []),
    ],
)
def test_tags_come_from_a_list_or_a_comma_or_space_separated_string(
    fm: str, tags: list[str]
) -> None:
    assert parse_note("x.md", f"---\n{fm}---\n".encode()).tags == tags


def test_non_utf8_bytes_are_a_utf8_problem_and_the_note_still_indexes() -> None:
    raw = b"---\ntitle: Caf\xe9\n---\n# H\n\nsee [[other]] \xff\n"
    doc = parse_note("x.md", raw)
    assert [p.rule for p in doc.problems] == ["utf8"]
    assert doc.title == "Caf\ufffd"
    assert "see" in doc.body
    assert [ln.target for ln in doc.links] == ["other"]


def test_bad_yaml_is_a_problem_and_the_note_still_indexes() -> None:
    doc = parse_note("tech/hue.md", b"---\ntitle: [unclosed\n---\n# Heading\nbody [[x]]\n")
    assert [p.rule for p in doc.problems] == ["yaml_syntax"]
    assert doc.frontmatter is None
    assert doc.title == "Heading"
    assert doc.body == "# Heading\nbody [[x]]\n"
    assert [ln.target for ln in doc.links] == ["x"]


def test_a_control_character_in_the_frontmatter_is_a_problem_not_a_crash() -> None:
    doc = parse_note("x.md", b"---\ntitle: a\x1bb\n---\nbody\n")
    assert len(doc.problems) == 1


def test_the_revision_is_the_sha256_hex_of_the_exact_bytes() -> None:
    raw = b"---\ntitle: x\n---\nbody\n"
    expected = hashlib.sha256(raw).hexdigest()
    assert revision_of(raw) == expected
    assert parse_note("x.md", raw).revision == expected
    assert parse_note("x.md", raw + b"\n").revision != expected
    assert revision_of(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_the_model_keeps_the_frontmatter_text_body_and_links() -> None:
    raw = "\ufeff---\ntitle: Hue\n---\nbody [[tech/other|o]]\n".encode()
    doc = parse_note("tech/hue.md", raw)
    assert doc.path == "tech/hue.md"
    assert doc.frontmatter == {"title": "Hue"}
    assert doc.frontmatter_text == "title: Hue\n"
    assert doc.body == "body [[tech/other|o]]\n"
    assert [(ln.target, ln.alias, ln.line) for ln in doc.links] == [("tech/other", "o", 4)]
    assert doc.problems == []


def test_a_note_without_frontmatter_has_no_frontmatter() -> None:
    doc = parse_note("x.md", b"plain\n")
    assert doc.frontmatter is None
    assert doc.frontmatter_text == ""
    assert doc.body == "plain\n"
