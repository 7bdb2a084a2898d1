"""read_code through the MCP tool and `hoard run-js`: the same sandbox, the caller's rights."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.cli.main import run
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import chain_vault

THREE_HOPS = """
const hits = await call("search", {query: "compost", limit: 1});
const first = await call("read", {path: hits.results[0].path});
const links = await call("links", {path: first.path});
const next = await call("read", {path: links.outgoing[0].resolved_path});
return next.path;
"""


@pytest.fixture
def hoard(vault: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    """The :func:`chain_vault`: start → middle → final, and a protected plan."""
    chain_vault(vault)
    return open_hoard()


@pytest.mark.anyio
async def test_the_read_code_tool_runs_a_three_hop_script(hoard: Hoard, agent: Caller) -> None:
    mcp = HoardMCP(hoard, agent)
    try:
        async with Client(mcp.server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool("read_code", {"code": THREE_HOPS})
    finally:
        mcp.close()

    assert tools["read_code"].annotations.read_only_hint is True
    assert not result.is_error, result.content
    assert result.structured_content["result"] == "tech/middle.md"
    assert [c["tool"] for c in result.structured_content["calls"]] == [
        "search",
        "read",
        "links",
        "read",
    ]


@pytest.mark.anyio
async def test_a_hostile_script_is_a_sandbox_limit_and_the_server_keeps_serving(
    hoard: Hoard, agent: Caller
) -> None:
    mcp = HoardMCP(hoard, agent)
    try:
        async with Client(mcp.server) as client:
            refused = await client.call_tool(
                "read_code", {"code": "x".join([""] * 1) + "a" * 21_000}
            )
            after = await client.call_tool("vault_search", {"query": "compost"})
    finally:
        mcp.close()

    assert refused.is_error
    assert json.loads(refused.content[0].text)["limit"] == "code_size"
    assert not after.is_error


@pytest.mark.anyio
async def test_read_code_cannot_read_a_protected_note_without_a_grant(
    hoard: Hoard, agent: Caller
) -> None:
    mcp = HoardMCP(hoard, agent)
    try:
        async with Client(mcp.server) as client:
            result = await client.call_tool(
                "read_code", {"code": 'return await call("read", {path: "secret/plan.md"});'}
            )
    finally:
        mcp.close()

    assert result.is_error
    assert "protected" in result.content[0].text


def test_hoard_run_js_prints_the_result_as_json(
    hoard: Hoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "hops.js"
    script.write_text(THREE_HOPS, encoding="utf-8")

    code = run(
        [
            "run-js",
            str(script),
            "--vault",
            str(hoard.vault.root),
            "--state-dir",
            str(hoard.state_dir),
            "--json",
        ]
    )

    assert code == 0
    assert json.loads(capsys.readouterr().out)["result"] == "tech/middle.md"
