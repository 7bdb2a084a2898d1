"""Fixtures shared by the surface suites (MCP, CLI, HTTP): a small vault with a protected and
a private note, and the two ways to read a tool result. The shared vaults, callers and
polling helpers come from ``tests/conftest.py``; the live HTTP servers from
``surfaces/http/conftest.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CallToolResult

from hoard.app.hoard import Hoard
from tests.helpers import make_vault, note_text

# A word that occurs only in the protected note, and one only in a private note.
SECRET_WORD = "zanzibarquux"
PRIVATE_WORD = "quillfeatherpine"


def _tool_error(result: CallToolResult) -> dict[str, Any]:
    """The SPEC error object of a refused call: the first text content, parsed as JSON."""
    assert result.is_error, f"expected a tool error, got {result.structured_content!r}"
    first = result.content[0]
    assert first.type == "text"
    obj = json.loads(first.text)
    assert isinstance(obj, dict)
    assert isinstance(obj.get("error"), str)
    assert isinstance(obj.get("message"), str)
    return obj


def _ok(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful call."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture(scope="session")
def tool_error() -> Callable[[CallToolResult], dict[str, Any]]:
    return _tool_error


@pytest.fixture(scope="session")
def ok() -> Callable[[CallToolResult], dict[str, Any]]:
    return _ok


@pytest.fixture
def protected_vault(tmp_path: Path) -> Path:
    """A small vault with ``protected = ["secret/**"]``:

    - ``secret/plan.md`` holds :data:`SECRET_WORD` and links to ``tech/hub.md``;
    - ``tech/hub.md`` links to ``[[plan]]`` (the protected note);
    - ``personal-notes/diary.md`` is private (the default glob) and holds :data:`PRIVATE_WORD`.
    """
    return make_vault(
        tmp_path / "vault",
        {
            "secret/plan.md": note_text(
                "Takeover plan", f"The {SECRET_WORD} plan, in full. Coordinate through [[hub]]."
            ),
            "tech/hub.md": note_text("Hub", "The hub of everything. The plan lives in [[plan]]."),
            "tech/other.md": note_text("Other", "An ordinary note about gardening."),
            "personal-notes/diary.md": f"# Diary\n\nToday the {PRIVATE_WORD} bloomed.\n",
        },
        config='protected = ["secret/**"]\n',
    )


@pytest.fixture
def protected_state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def protected_hoard(protected_vault: Path, protected_state: Path) -> Iterator[Hoard]:
    with Hoard(protected_vault, protected_state) as hoard:
        yield hoard
