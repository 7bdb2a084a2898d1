"""hoard.core.paths: the vault-relative identity of a note, and everything it refuses."""

from __future__ import annotations

import posixpath
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hoard.core.errors import PathRejected
from hoard.core.paths import (
    MAX_COMPONENT_BYTES,
    MAX_PATH_BYTES,
    folder_of,
    normalize_note_path,
    normalize_rel_path,
    stem_of,
)


@pytest.mark.parametrize(
    ("given_path", "expected"),
    [
        ("tech/hue-bridge.md", "tech/hue-bridge.md"),
        ("a.md", "a.md"),
        ("life/Notes With Spaces/My Note.md", "life/Notes With Spaces/My Note.md"),
        ("tech/README.MD", "tech/README.MD"),
        ("tech/x.md/", "tech/x.md"),
        ("dansk/smørrebrød.md", "dansk/smørrebrød.md"),
        ("a" * 252 + ".md", "a" * 252 + ".md"),
    ],
)
def test_a_plain_relative_note_path_is_accepted_unchanged(given_path: str, expected: str) -> None:
    assert normalize_note_path(given_path) == expected


def test_a_decomposed_name_is_normalised_to_nfc() -> None:
    decomposed = "cafe\u0301.md"
    result = normalize_note_path(decomposed)
    assert result == "caf\u00e9.md"
    assert unicodedata.is_normalized("NFC", result)


def test_a_decomposed_folder_name_is_normalised_to_nfc() -> None:
    assert normalize_rel_path("A\u030arhus/x.md") == "\u00c5rhus/x.md"


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param("../etc/passwd.md", id="parent-first"),
        pytest.param("tech/../../x.md", id="parent-middle"),
        pytest.param("tech/..", id="parent-last"),
        pytest.param("..", id="parent-only"),
        pytest.param("./x.md", id="dot-first"),
        pytest.param("tech/./x.md", id="dot-middle"),
        pytest.param("/etc/passwd.md", id="absolute"),
        pytest.param("//server/share/x.md", id="unc-like"),
        pytest.param("C:/x.md", id="drive-letter"),
        pytest.param("a\x00b.md", id="nul"),
        pytest.param("tech\\x.md", id="backslash"),
        pytest.param("..\\..\\x.md", id="backslash-traversal"),
        pytest.param("a\nb.md", id="newline"),
        pytest.param("a\rb.md", id="carriage-return"),
        pytest.param("a\tb.md", id="tab"),
        pytest.param("a\x1bb.md", id="escape"),
        pytest.param("a\x7fb.md", id="delete"),
        pytest.param(".obsidian/app.md", id="dot-folder"),
        pytest.param("tech/.trash/x.md", id="nested-dot-folder"),
        pytest.param(".hidden.md", id="dot-file"),
        pytest.param("tech/.x.md.tmp", id="staging-file"),
        pytest.param("tech//x.md", id="empty-component"),
        pytest.param("", id="empty"),
        pytest.param(".", id="dot-root"),
        pytest.param(" tech/x.md", id="leading-space-folder"),
        pytest.param("tech /x.md", id="trailing-space-folder"),
        pytest.param("tech/ x.md", id="leading-space-name"),
        pytest.param("tech/\u3000x.md", id="ideographic-space"),
        pytest.param("tech/\u00a0x.md", id="no-break-space"),
        pytest.param("a" * 253 + ".md", id="component-256-bytes"),
        pytest.param("é" * 127 + ".md", id="component-257-bytes-in-130-chars"),
    ],
)
def test_an_unsafe_path_is_rejected(bad: str) -> None:
    with pytest.raises(PathRejected) as info:
        normalize_note_path(bad)
    obj = info.value.to_object()
    assert obj["error"] == "path_rejected"
    assert obj["reason"]


@pytest.mark.parametrize(
    "not_a_note", ["tech/x.txt", "tech/x", "tech/x.md.bak", "tech/x.markdown", "tech/"]
)
def test_a_path_that_does_not_end_in_md_is_not_a_note(not_a_note: str) -> None:
    with pytest.raises(PathRejected):
        normalize_note_path(not_a_note)


def test_a_non_note_file_is_still_a_valid_relative_path() -> None:
    assert normalize_rel_path("assets/diagram.png") == "assets/diagram.png"


def _path_of_bytes(total: int) -> str:
    """A path of exactly ``total`` UTF-8 bytes, every component within the component cap."""
    head = "/".join(["a" * 200] * 4) + "/"
    return head + "b" * (total - len(head) - 3) + ".md"


def test_a_path_at_the_byte_limit_is_accepted() -> None:
    path = _path_of_bytes(MAX_PATH_BYTES)
    assert len(path.encode()) == MAX_PATH_BYTES
    assert normalize_note_path(path) == path


def test_a_path_one_byte_over_the_limit_is_rejected() -> None:
    path = _path_of_bytes(MAX_PATH_BYTES + 1)
    assert max(len(p.encode()) for p in path.split("/")) <= MAX_COMPONENT_BYTES
    with pytest.raises(PathRejected):
        normalize_note_path(path)


def test_component_length_counts_utf8_bytes_not_characters() -> None:
    ok = "é" * 126 + ".md"  # 255 bytes
    assert len(ok.encode()) == MAX_COMPONENT_BYTES
    assert normalize_note_path(ok) == ok


@pytest.mark.parametrize("root", ["", ".", "./"])
def test_allow_root_accepts_the_empty_path_for_listing(root: str) -> None:
    assert normalize_rel_path(root, allow_root=True) == ""


def test_allow_root_still_refuses_an_absolute_root() -> None:
    with pytest.raises(PathRejected):
        normalize_rel_path("/", allow_root=True)


def test_without_allow_root_the_empty_path_is_rejected() -> None:
    with pytest.raises(PathRejected):
        normalize_rel_path("")


def test_a_folder_with_a_trailing_slash_lists_as_the_folder() -> None:
    assert normalize_rel_path("tech/", allow_root=True) == "tech"


@pytest.mark.parametrize("c1", ["\x85", "\x9b"])
def test_a_c1_control_character_is_rejected(c1: str) -> None:
    # U+0080..U+009F are control characters (category Cc), like the C0 ones the module refuses.
    with pytest.raises(PathRejected):
        normalize_note_path(f"tech/a{c1}b.md")


@pytest.mark.parametrize("surrogate", ["\ud800", "x\udc80y"])
def test_a_lone_surrogate_is_a_path_rejection_not_a_crash(surrogate: str) -> None:
    # JSON can carry "\ud800"; the refusal must be PathRejected, not a UnicodeEncodeError.
    with pytest.raises(PathRejected):
        normalize_note_path(f"tech/{surrogate}.md")


@pytest.mark.parametrize(
    ("path", "folder", "stem"),
    [
        ("tech/hue-bridge.md", "tech", "hue-bridge"),
        ("a.md", "", "a"),
        ("a/b/c.MD", "a/b", "c"),
        ("a/b/notes", "a/b", "notes"),
    ],
)
def test_folder_and_stem_of_a_note_path(path: str, folder: str, stem: str) -> None:
    assert folder_of(path) == folder
    assert stem_of(path) == stem


_PIECES = st.sampled_from(
    [
        "..",
        ".",
        "",
        "a",
        "tech",
        "é",
        "e\u0301",
        "A\u030a",
        " x",
        "x ",
        "/",
        "\\",
        ".git",
        "b.md",
        "\x00",
        "\n",
        "C:",
        "\u3000",
        "Å",
    ]
)
_PATHISH = st.lists(_PIECES, max_size=8).map("/".join)


def _check_contained_and_canonical(text: str) -> None:
    try:
        out = normalize_rel_path(text, allow_root=True)
    except PathRejected:
        return
    parts = out.split("/") if out else []
    assert ".." not in parts
    assert "." not in parts
    assert "" not in parts
    assert not out.startswith("/")
    assert "\\" not in out
    assert "\x00" not in out
    assert unicodedata.is_normalized("NFC", out)
    assert normalize_rel_path(out, allow_root=True) == out
    joined = posixpath.normpath(posixpath.join("/vault", out))
    assert joined == "/vault" or joined.startswith("/vault/")


@given(st.text(max_size=60))
@example("cafe\u0301/../x.md")
@example("a/./b")
def test_any_text_is_rejected_or_becomes_a_contained_idempotent_nfc_path(text: str) -> None:
    _check_contained_and_canonical(text)


@given(_PATHISH)
def test_any_path_like_text_is_rejected_or_becomes_a_contained_idempotent_nfc_path(
    text: str,
) -> None:
    _check_contained_and_canonical(text)


@given(_PATHISH)
def test_a_note_path_is_a_relative_path_that_ends_in_md(text: str) -> None:
    try:
        out = normalize_note_path(text)
    except PathRejected:
        return
    assert out.lower().endswith(".md")
    assert out == normalize_rel_path(text)
