"""An unknown tool name is the SPEC error object; a missing note resource is the SDK's
resource-not-found error (issue 18, item 5)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[HoardMCP]:
    (tmp_path / "vault").mkdir()
    with Hoard(tmp_path / "vault", tmp_path / "state") as hoard:
        yield HoardMCP(hoard, LOCAL_DEFAULT)


async def test_an_unknown_tool_answers_with_the_spec_error_object(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        result = await c.call_tool("vault_delete_everything", {"path": "x.md"})

    assert result.is_error
    obj = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert obj["error"] == "invalid_argument"
    assert obj["tool"] == "vault_delete_everything"
    assert obj["message"]


async def test_a_missing_note_resource_is_resource_not_found(mcp: HoardMCP) -> None:
    async with Client(mcp.server) as c:
        with pytest.raises(MCPError) as missing:
            await c.read_resource("vault://tech/none.md")
        policy = await c.call_tool("vault_policy", {})

    assert missing.value.code == -32602
    assert not policy.is_error
