"""vault_list: the live filesystem, not the index."""

from __future__ import annotations

import os
import re
from datetime import datetime

import pytest

from hoard.core.errors import InvalidArgument, NotFound, PathRejected
from hoard.core.policy import OWNER

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


@pytest.fixture
def tree(vault, write_note):
    write_note("top.md", "Top", "root note")
    write_note("tech/a.md", "A", "a")
    write_note("tech/b.md", "B", "b")
    write_note("tech/homelab/c.md", "C", "c")
    (vault / "tech" / "diagram.png").write_bytes(b"\x89PNG")
    write_note("tech/.hoard-stage-1a2b3c.md", "Stage", "half-written")
    write_note(".obsidian/workspace.md", "Ws", "x")
    write_note(".trash/old.md", "Old", "x")
    (vault / ".git").mkdir()
    (vault / ".git" / "config").write_text("[core]\n")
    (vault / "tech" / ".DS_Store").write_bytes(b"x")
    return vault


def _paths(result) -> list[str]:
    return [e.path for e in result.entries]


def test_listing_the_root_shows_its_entries_only(tree, open_hoard):
    r = open_hoard().reading.list(caller=OWNER)

    assert r.path == ""
    assert _paths(r) == ["tech", "top.md"]
    kinds = {e.path: e.kind for e in r.entries}
    assert kinds == {"tech": "folder", "top.md": "note"}
    assert r.truncated is False


def test_listing_a_folder_gives_vault_relative_paths_and_kinds(tree, open_hoard):
    r = open_hoard().reading.list("tech", caller=OWNER)

    assert r.path == "tech"
    assert sorted(_paths(r)) == ["tech/a.md", "tech/b.md", "tech/diagram.png", "tech/homelab"]
    kinds = {e.path: e.kind for e in r.entries}
    assert kinds["tech/a.md"] == "note"
    assert kinds["tech/diagram.png"] == "file"
    assert kinds["tech/homelab"] == "folder"


def test_a_recursive_listing_walks_subfolders(tree, open_hoard):
    r = open_hoard().reading.list("", recursive=True, caller=OWNER)

    assert sorted(_paths(r)) == [
        "tech",
        "tech/a.md",
        "tech/b.md",
        "tech/diagram.png",
        "tech/homelab",
        "tech/homelab/c.md",
        "top.md",
    ]


def test_dot_files_dot_folders_and_staging_files_are_hidden(tree, open_hoard):
    paths = _paths(open_hoard().reading.list("", recursive=True, caller=OWNER))

    assert not [p for p in paths if any(part.startswith(".") for part in p.split("/"))]
    assert not [p for p in paths if "hoard-stage" in p]


def test_sizes_and_mtimes_describe_the_files(tree, open_hoard):
    entries = {e.path: e for e in open_hoard().reading.list("tech", caller=OWNER).entries}

    a = entries["tech/a.md"]
    assert a.size == (tree / "tech" / "a.md").stat().st_size
    assert ISO.match(a.mtime), a.mtime
    parsed = datetime.fromisoformat(a.mtime.replace("Z", "+00:00"))
    assert abs(parsed.timestamp() - (tree / "tech" / "a.md").stat().st_mtime) < 2
    assert ISO.match(entries["tech/homelab"].mtime)


def test_a_note_written_a_moment_ago_is_listed_without_any_sync(tree, open_hoard, write_note):
    h = open_hoard()
    h.reading.list("tech", caller=OWNER)

    write_note("tech/fresh.md", "Fresh", "just now")
    (tree / "tech" / "b.md").unlink()

    paths = _paths(h.reading.list("tech", caller=OWNER))
    assert "tech/fresh.md" in paths
    assert "tech/b.md" not in paths


def test_limit_truncates_the_listing(tree, open_hoard):
    h = open_hoard()

    short = h.reading.list("", recursive=True, limit=3, caller=OWNER)
    exact = h.reading.list("", recursive=True, limit=7, caller=OWNER)

    assert len(short.entries) == 3
    assert short.truncated is True
    assert len(exact.entries) == 7
    assert exact.truncated is False


@pytest.mark.parametrize("limit", [0, -1, True, "10", 10**9])
def test_a_bad_limit_is_invalid_argument(tree, open_hoard, limit):
    with pytest.raises(InvalidArgument):
        open_hoard().reading.list("", limit=limit, caller=OWNER)


def test_a_missing_folder_is_not_found(tree, open_hoard):
    h = open_hoard()

    for path in ("nowhere", "tech/nowhere", "top.md/x"):
        with pytest.raises(NotFound):
            h.reading.list(path, caller=OWNER)


@pytest.mark.parametrize("path", ["nowhere", "tech/nowhere", "top.md"])
def test_a_missing_folder_error_names_the_folder_that_was_asked_for(tree, open_hoard, path):
    with pytest.raises(NotFound) as info:
        open_hoard().reading.list(path, caller=OWNER)

    assert info.value.to_object()["path"] == path
    assert f"{path}/x" not in info.value.message


@pytest.mark.parametrize("path", ["../", "/etc", ".git", "tech/../..", "a\\b"])
def test_a_hostile_folder_is_path_rejected(tree, open_hoard, path):
    with pytest.raises(PathRejected):
        open_hoard().reading.list(path, caller=OWNER)


def test_ignore_globs_from_hoard_toml_are_hidden(tree, write_note, open_hoard):
    (tree / "hoard.toml").write_text('ignore = ["drafts/**", "**/*.tmp.md"]\n', encoding="utf-8")
    write_note("drafts/d.md", "Draft", "x")
    write_note("tech/x.tmp.md", "Tmp", "x")
    h = open_hoard()

    paths = _paths(h.reading.list("", recursive=True, caller=OWNER))

    assert "drafts" not in paths
    assert "drafts/d.md" not in paths
    assert "tech/x.tmp.md" not in paths
    assert "tech/a.md" in paths
    with pytest.raises(NotFound):
        h.reading.list("drafts", caller=OWNER)


def test_symlinks_are_not_listed(tree, open_hoard):
    os.symlink(tree / "tech" / "a.md", tree / "tech" / "link.md")
    os.symlink(tree / "tech", tree / "linked-folder")

    paths = _paths(open_hoard().reading.list("", recursive=True, caller=OWNER))

    assert "tech/link.md" not in paths
    assert "linked-folder" not in paths
