"""The one folder walker: one component at a time, never through a symlink, one error
mapping for readers and writers."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from hoard.adapters.fs.folders import open_folder
from hoard.core.errors import NotFound, PathRejected


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "vault" / "a" / "b").mkdir(parents=True)
    (tmp_path / "vault" / "a" / "file.md").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "vault" / "link").symlink_to(tmp_path / "outside")
    return tmp_path / "vault"


def _names(fd: int) -> list[str]:
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


def test_a_real_folder_opens_and_the_root_is_the_empty_path(root: Path) -> None:
    assert _names(open_folder(root, "a")) == ["b", "file.md"]
    assert "a" in _names(open_folder(root, ""))


@pytest.mark.parametrize("create", [False, True])
def test_a_symlink_on_the_way_is_refused_whether_reading_or_writing(
    root: Path, create: bool
) -> None:
    with pytest.raises(PathRejected, match="symlink"):
        open_folder(root, "link/deeper", create=create, asked="link/deeper/n.md")
    assert not (root.parent / "outside" / "deeper").exists()


def test_a_file_on_the_way_is_not_found_for_a_reader_and_refused_for_a_writer(
    root: Path,
) -> None:
    with pytest.raises(NotFound):
        open_folder(root, "a/file.md/x")
    with pytest.raises(PathRejected, match="goes through a file"):
        open_folder(root, "a/file.md/x", create=True)


def test_a_missing_folder_is_not_found_unless_the_writer_makes_it(root: Path) -> None:
    with pytest.raises(NotFound) as err:
        open_folder(root, "new/deep", asked="new/deep/n.md")
    assert err.value.details["path"] == "new/deep/n.md"
    assert _names(open_folder(root, "new/deep", create=True)) == []
    assert (root / "new" / "deep").is_dir()


def test_a_folder_stored_decomposed_is_found_by_its_nfc_name(root: Path) -> None:
    nfc = "caf\u00e9"
    (root / unicodedata.normalize("NFD", nfc)).mkdir()
    (root / unicodedata.normalize("NFD", nfc) / "n.md").write_text("x")
    assert _names(open_folder(root, nfc)) == ["n.md"]
