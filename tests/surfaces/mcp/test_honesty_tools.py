"""The claims and synthesis tools through the SDK's in-memory client, and ``hoard claims``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from hoard.app.hoard import Hoard
from hoard.app.honesty import DISCLAIMER, Honesty
from hoard.core.policy import Caller
from hoard.surfaces.cli.claims import add_parsers, claims_command
from hoard.surfaces.mcp.server import HoardMCP

Put = Callable[[str, str], Path]


@pytest.fixture
def vault(vault: Path) -> Path:
    """Notes under ``secret/`` are protected."""
    (vault / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    return vault


@pytest.fixture
def honesty(hoard: Hoard) -> Honesty:
    return hoard.honesty


def _data(result: CallToolResult) -> dict[str, Any]:
    if result.is_error:
        first = result.content[0]
        assert first.type == "text"
        obj = json.loads(first.text)
        assert isinstance(obj, dict)
        return obj
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.mark.anyio
async def test_the_tools_record_check_and_refuse_with_spec_error_objects(
    hoard: Hoard, honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    mcp = HoardMCP(hoard, writer)
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("sum.md", "summary of a")
    edit_note("secret/x.md", "hidden")

    async with Client(mcp.server) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        rec = _data(
            await c.call_tool(
                "claim_record",
                {"subject": "hue", "property": "ip", "value": "10.0.0.42", "source_path": "a.md"},
            )
        )
        got = _data(await c.call_tool("claim_get", {"subject": "hue", "property": "ip"}))
        listed = _data(await c.call_tool("claim_list", {"subject": "hue"}))
        reg = _data(
            await c.call_tool("synthesis_register", {"path": "sum.md", "sources": ["a.md"]})
        )
        status = _data(await c.call_tool("synthesis_status", {"path": "sum.md"}))
        bad_scope = _data(
            await c.call_tool(
                "claim_record",
                {
                    "subject": "hue",
                    "property": "ip",
                    "value": "x",
                    "source_path": "a.md",
                    "scope": "home",
                    "supersedes": rec["claim_id"],
                },
            )
        )
        protected = _data(
            await c.call_tool("synthesis_register", {"path": "sum.md", "sources": ["secret/x.md"]})
        )
        too_many = _data(
            await c.call_tool(
                "synthesis_register", {"path": "sum.md", "sources": [f"{i}.md" for i in range(33)]}
            )
        )

    assert names >= {
        "claim_record",
        "claim_get",
        "claim_list",
        "synthesis_register",
        "synthesis_status",
    }
    assert set(rec) >= {"claim_id", "source_revision"}
    assert set(got) >= {
        "status",
        "value",
        "claim_id",
        "source_path",
        "recorded_revision",
        "current_revision",
        "conflicting",
    }
    assert (got["status"], got["value"], got["disclaimer"]) == ("current", "10.0.0.42", DISCLAIMER)
    assert [c["claim_id"] for c in listed["claims"]] == [rec["claim_id"]]
    assert reg["path"] == "sum.md"
    assert reg["sources"] == [{"path": "a.md", "revision": rec["source_revision"]}]
    assert set(status) >= {"state", "drifted", "budget", "disclaimer"}
    assert status["state"] == "current"
    assert bad_scope["error"] == "invalid_argument"
    assert protected["error"] == "protected"
    assert too_many["error"] == "invalid_argument"


def test_hoard_claims_lists_checks_and_reports_summaries(
    honesty: Honesty, edit_note: Put, writer: Caller, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("sum.md", "summary")
    honesty.claims.record("hue", "ip", "10.0.0.42", "a.md", caller=writer)
    honesty.syntheses.register("sum.md", ["a.md"], caller=writer)
    parser = argparse.ArgumentParser(prog="hoard")
    sub = parser.add_subparsers(dest="command")
    add_parsers(sub)

    def run(*argv: str) -> str:
        assert claims_command(parser.parse_args(["claims", *argv]), honesty) == 0
        return capsys.readouterr().out

    assert "hue / ip / global = '10.0.0.42'" in run()
    assert run("--get", "hue", "ip").startswith("current: hue / ip / global")
    assert json.loads(run("--status", "sum.md", "--json"))["state"] == "current"
    edit_note("a.md", "IP 10.0.0.43")
    assert "drifted a.md" in run("--status", "sum.md")
    assert json.loads(run("--get", "hue", "ip", "--json"))["status"] == "abstained_stale_source"
