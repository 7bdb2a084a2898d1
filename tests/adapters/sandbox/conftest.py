"""Fixtures for the read_code sandbox: real worker processes, a real vault and Hoard (the
callers ``agent`` and ``owner`` come from ``tests/conftest.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.sandbox.pool import Sandbox
from hoard.app.hoard import Hoard
from tests.helpers import CHAIN_SECRET, chain_vault


@pytest.fixture
def hoard(vault: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    """The :func:`chain_vault`: start → middle → final, and a protected plan."""
    chain_vault(vault)
    return open_hoard()


@pytest.fixture
def secret_word() -> str:
    return CHAIN_SECRET


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
