"""Fixtures local to the claims and synthesis suite (the shared ones, ``hoard``, ``edit_note``,
``rev``, ``reader``, ``writer``, live in ``tests/conftest.py``):

- ``vault``: the shared empty vault with ``protected = ["secret/**"]`` in its ``hoard.toml``;
- ``honesty``: :class:`hoard.app.honesty.Honesty` of the test's ``hoard``;
- ``frozen_budget()``: a :class:`Budget` whose clock never moves, for tests that count file
  checks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.app.honesty import Budget, Honesty


@pytest.fixture
def vault(vault: Path) -> Path:
    (vault / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    return vault


@pytest.fixture
def honesty(hoard: Hoard) -> Honesty:
    return hoard.honesty


@pytest.fixture
def frozen_budget() -> Callable[[], Budget]:
    return lambda: Budget(clock=lambda: 0.0)
