"""Fixtures for the service-level suite: small real vaults in tmp_path, real SQLite indexes.

Helpers are handed out as fixtures (``write_note``, ``note_text``, ``wait_until``,
``open_hoard``) so test modules never import this file.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.app.hoard import Hoard

EXAMPLE_VAULT = Path(__file__).resolve().parents[2] / "examples" / "vault"


def _note_text(
    title: str,
    body: str = "",
    *,
    tags: Iterable[str] = ("alpha", "beta"),
    type: str = "note",
    status: str = "active",
    updated: str = "2026-03-01",
    extra: str = "",
) -> str:
    """A note that passes the default frontmatter contract (``extra`` is raw YAML lines)."""
    tag_list = ", ".join(tags)
    head = (
        f"---\ntitle: {title}\ntype: {type}\nstatus: {status}\n"
        f"tags: [{tag_list}]\nupdated: {updated}\n{extra}---\n"
    )
    return head + body.rstrip("\n") + "\n"


def _wait_until(pred: Callable[[], object], timeout: float = 5.0, interval: float = 0.02) -> object:
    """Poll ``pred`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    """Where index.db lives: a sibling of the vault, never inside it."""
    return tmp_path / "state"


@pytest.fixture
def note_text() -> Callable[..., str]:
    return _note_text


@pytest.fixture
def write_note(vault: Path) -> Callable[..., Path]:
    """``write_note("tech/x.md", "Title", "body", tags=..., root=other_vault)``; with
    ``raw=...`` the exact text is written instead of a generated note."""

    def write(
        rel: str,
        title: str = "",
        body: str = "",
        *,
        raw: str | bytes | None = None,
        root: Path | None = None,
        **fields: Any,
    ) -> Path:
        path = (root or vault) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if raw is None:
            raw = _note_text(title or path.stem, body, **fields)
        if isinstance(raw, bytes):
            path.write_bytes(raw)
        else:
            path.write_text(raw, encoding="utf-8")
        return path

    return write


@pytest.fixture
def wait_until() -> Callable[..., object]:
    return _wait_until


@pytest.fixture
def open_hoard(vault: Path, state_dir: Path) -> Iterator[Callable[..., Hoard]]:
    """Open a :class:`Hoard` (defaults: the ``vault`` and ``state_dir`` fixtures); every one
    opened is closed at teardown."""
    opened: list[Hoard] = []

    def open_(root: Path | None = None, state: Path | None = None, *, watch: bool = False) -> Hoard:
        h = Hoard(root or vault, state or state_dir, watch=watch)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of the bundled example vault (the original is never touched)."""
    dest = tmp_path / "example"
    shutil.copytree(EXAMPLE_VAULT, dest)
    return dest
