"""The index's trust stamp: a skipped deep check never trusts a file whose contents changed
since it was verified, while hoard's own transactions keep the chain of trust."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from hoard.adapters.fs.vault import Vault
from hoard.adapters.index.store import Index
from hoard.core.config import Config


def _index(tmp_path: Path) -> Index:
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(20):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\n" + "words " * 200, encoding="utf-8")
    config = Config()
    index = Index(tmp_path / "state" / "index.db", Vault(vault, config), config)
    index.open_checked()
    return index


def test_a_freshly_built_index_is_trusted(tmp_path: Path) -> None:
    index = _index(tmp_path)

    assert index.trusted()
    assert index.check(deep=False) is None


def test_hoards_own_writes_keep_the_index_trusted_across_a_close(tmp_path: Path) -> None:
    index = _index(tmp_path)
    (index.vault.root / "new.md").write_text("# New\n\nfresh words\n", encoding="utf-8")

    index.sync()
    index.close()

    reopened = Index(index.path, index.vault, index.config)
    assert reopened.trusted()


def test_a_same_size_overwrite_with_the_old_mtime_is_not_trusted(tmp_path: Path) -> None:
    index = _index(tmp_path)
    index.close()
    st = index.path.stat()
    with index.path.open("r+b") as f:
        f.seek(st.st_size // 2)
        f.write(os.urandom(4096))
    os.utime(index.path, ns=(st.st_atime_ns, st.st_mtime_ns))

    reopened = Index(index.path, index.vault, index.config)

    assert not reopened.trusted()
    assert reopened.check(deep=False) is not None


def test_a_write_on_a_distrusted_file_is_refused_and_never_restamps_it(tmp_path: Path) -> None:
    index = _index(tmp_path)
    with index.path.open("r+b") as f:
        f.seek(index.path.stat().st_size // 2)
        f.write(os.urandom(4096))
    (index.vault.root / "new.md").write_text("# New\n", encoding="utf-8")

    with pytest.raises(sqlite3.DatabaseError):
        index.sync()
    index.close()

    assert not Index(index.path, index.vault, index.config).trusted()
