"""Fixtures for the claims and synthesis suite: a real vault in tmp_path, a real ledger.db
and index.db, and :class:`hoard.app.honesty.Honesty` over them. No mocks.

- ``hoard``: a :class:`Hoard` over them (its ledger has the honesty tables: migration 4);
- ``honesty``: the façade over ``hoard``;
- ``put("tech/a.md", "text")``: write a note the way an editor would, always with a new
  ``mtime_ns`` (the hash cache keys on it; real edits move it, tests must not depend on the
  clock's resolution);
- ``rev("tech/a.md")``: the SHA-256 of the file's bytes now;
- ``reader`` / ``writer``: callers with ``read`` / ``read, write`` (not owners: protected notes
  are hidden from them); ``frozen_budget()``: a :class:`Budget` whose clock never moves, for
  tests that count file checks.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.app.honesty import Budget, Honesty
from hoard.core.policy import Caller

Put = Callable[[str, str], Path]

_MTIME_BASE = 1_700_000_000 * 10**9
_tick = itertools.count(1)


def _note(title: str, body: str = "") -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [alpha, beta]\n"
        f"updated: 2026-03-01\n---\n{body.rstrip()}\n"
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    return root


@pytest.fixture
def put(vault: Path) -> Put:
    def write(rel: str, text: str) -> Path:
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.startswith("---") else _note(rel, text), encoding="utf-8")
        ns = _MTIME_BASE + next(_tick) * 1_000_000_007
        os.utime(path, ns=(ns, ns))
        return path

    return write


@pytest.fixture
def rev(vault: Path) -> Callable[[str], str]:
    return lambda rel: hashlib.sha256((vault / rel).read_bytes()).hexdigest()


@pytest.fixture
def hoard(vault: Path, tmp_path: Path) -> Iterator[Hoard]:
    h = Hoard(vault, tmp_path / "state")
    try:
        yield h
    finally:
        h.close()


@pytest.fixture
def honesty(hoard: Hoard) -> Honesty:
    return hoard.honesty


@pytest.fixture
def reader() -> Caller:
    return Caller("reader", frozenset({"read"}), "direct")


@pytest.fixture
def writer() -> Caller:
    return Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture
def frozen_budget() -> Callable[[], Budget]:
    return lambda: Budget(clock=lambda: 0.0)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
