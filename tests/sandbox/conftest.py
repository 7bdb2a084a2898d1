"""Fixtures for the read_code sandbox: real worker processes, a real vault and service."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.sandbox.pool import Sandbox
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller

SECRET_WORD = "zanzibarite"


def _note(title: str, body: str, tags: str = "alpha, beta") -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [{tags}]\n"
        f"updated: 2026-03-01\n---\n{body}\n"
    )


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    """Three notes chained by links (start → middle → final) and a protected one."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    _write(root, "tech/start.md", _note("Compost heaps", "Compost basics. Go on to [[middle]]."))
    _write(root, "tech/middle.md", _note("Middle", "Halfway there. The end is [[final]]."))
    _write(root, "tech/final.md", _note("Final", "The buried treasure is under the oak."))
    _write(root, "secret/plan.md", _note("Plan", f"The {SECRET_WORD} plan. See [[start]]."))
    with Hoard(root, tmp_path / "state") as h:
        yield h


@pytest.fixture
def secret_word() -> str:
    return SECRET_WORD


@pytest.fixture
def agent() -> Caller:
    """A non-owner caller with the read scope and no grant."""
    return Caller("agent", frozenset({"read"}), "propose")


@pytest.fixture
def owner() -> Caller:
    return OWNER


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(workers=2) as sb:
        yield sb


def child_pids() -> set[int]:
    """Children of this test process (zombies included: an unreaped worker is a leak)."""
    me = os.getpid()
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == me:
            found.add(int(entry))
    return found


@pytest.fixture
def children() -> Callable[[], set[int]]:
    return child_pids
