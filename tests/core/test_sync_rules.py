"""The pure rules of git sync: who wins a path, how a kept copy is named and marked, and
that no remote address is ever shown with its credentials."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from hoard.core.sync_rules import (
    REMOVED_HERE,
    ConflictMark,
    blob_id,
    conflict_name,
    conflict_of,
    decide,
    marked_copy,
    removed_here,
    scrub,
    unmarked,
)


@pytest.mark.parametrize(
    ("base", "local", "remote", "action"),
    [
        ("a", "a", "b", "take_remote"),
        ("a", "b", "a", "keep_local"),
        ("a", "b", "b", "same"),
        ("a", "b", "c", "conflict"),
        ("a", None, "b", "conflict"),  # removed here, edited there
        ("a", "b", None, "conflict"),  # edited here, removed there
        (None, "b", "c", "conflict"),  # added on both sides differently
        ("a", "a", None, "take_remote"),
        (None, None, "c", "take_remote"),
    ],
)
def test_the_side_that_changed_wins_and_two_different_changes_conflict(
    base: str | None, local: str | None, remote: str | None, action: str
) -> None:
    assert decide(base, local, remote) == action


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("fatal: https://me:s3cret@host/x.git", "fatal: https://***@host/x.git"),
        ("https://token@github.com/a/b", "https://***@github.com/a/b"),
        ("git@github.com:a/b.git", "git@github.com:a/b.git"),
        ("ssh://git@host/repo", "ssh://***@host/repo"),
    ],
)
def test_credentials_in_urls_are_never_shown(text: str, shown: str) -> None:
    assert scrub(text) == shown
    assert "s3cret" not in scrub(text)


def test_a_conflict_sibling_is_named_beside_its_note_and_leads_back_to_it() -> None:
    sib = conflict_name("tech/hue.md", "2026-12-01", "ab12cd34ef")
    assert sib == "tech/hue.conflict-2026-12-01-ab12cd3.md"
    assert conflict_of(sib) == "tech/hue.md"
    assert conflict_of("photo.conflict-2026-12-01-0123456.png") == "photo.png"
    assert conflict_of("tech/hue.md") is None


MARK = ConflictMark(
    path="tech/hue.md",
    local_revision="a1" * 32,
    remote_revision="b2" * 32,
    local_commit="c" * 40,
    remote_commit="d" * 40,
)


def test_a_kept_copy_names_both_revisions_and_keeping_it_removes_exactly_those_fields() -> None:
    raw = "---\ntitle: Hue\ntags: [a, b]\n---\nBody.\n"
    copy = marked_copy(raw.encode(), MARK).decode()
    assert "conflict_of: tech/hue.md\n" in copy
    assert f"conflict_local_revision: {'a1' * 32}" in copy
    assert f"conflict_remote_revision: {'b2' * 32}" in copy
    assert copy.endswith("---\nBody.\n")
    assert unmarked(copy) == raw


def test_a_sibling_that_stands_for_a_removal_here_says_so_in_its_frontmatter_only() -> None:
    raw = b"---\ntitle: Hue\n---\nconflict_local_revision: removed here\n"
    assert not removed_here(marked_copy(raw, MARK).decode())
    gone = dataclasses.replace(MARK, local_revision=REMOVED_HERE)
    assert removed_here(marked_copy(raw, gone).decode())
    assert not removed_here(raw.decode()), "the words in the body are no mark"


def test_a_note_without_frontmatter_gets_a_block_and_bytes_that_are_not_text_stay_exact() -> None:
    copy = marked_copy(b"just text\n", MARK).decode()
    assert copy.startswith("---\nconflict_of: tech/hue.md\n") and copy.endswith("---\njust text\n")
    assert unmarked(copy) == "just text\n"
    assert marked_copy(b"\xff\xfe\x00binary", MARK) == b"\xff\xfe\x00binary"


def test_blob_ids_are_the_ids_git_gives(tmp_path: Path) -> None:
    data = b"---\ntitle: x\n---\nBody \xc3\xa9.\n"
    (tmp_path / "f").write_bytes(data)
    out = subprocess.run(
        ["git", "hash-object", str(tmp_path / "f")], capture_output=True, text=True, check=True
    )
    assert blob_id(data) == out.stdout.strip()
