"""Inline ``#tags`` in note bodies, through the MCP SDK's in-memory client: counted by
vault_tags with where they are written, matched by vault_search's tags filter, and never
taken for the frontmatter tags the contract asks for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import make_vault, note_text

pytestmark = pytest.mark.anyio

AGENT = Caller("agent", frozenset({"read"}), "direct")
ONLY_INLINE = (
    "---\ntitle: Porch light\ntype: note\nstatus: active\nupdated: 2026-03-01\n---\n"
    "The porch #lighting/hue bulb, bought in a #café. Issue #42 is closed.\n"
    "```\n#not-a-tag\n```\n"
)


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = make_vault(
        tmp_path / "v",
        {
            "home/hub.md": note_text(
                "Hub", "Runs #zigbee and #Lighting/Hue.", tags=["homelab", "zigbee"]
            ),
            "home/porch.md": ONLY_INLINE,
            "home/other.md": note_text("Other", "# Heading only", tags=["homelab", "misc"]),
            "radio/a.md": note_text("Radio A", "Radio notes about the mesh.", tags=["x1", "x2"]),
            "radio/b.md": note_text("Radio B", "Radio notes about the #mesh.", tags=["x1", "x2"]),
        },
    )
    with Hoard(root, tmp_path / "state") as h:
        yield h


async def call(hoard: Hoard, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with Client(HoardMCP(hoard, AGENT).server) as c:
        result = await c.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_vault_tags_counts_inline_tags_and_says_where_each_is_written(
    hoard: Hoard,
) -> None:
    tags = {
        t["tag"]: (t["count"], t["source"]) for t in (await call(hoard, "vault_tags", {}))["tags"]
    }
    assert tags == {
        "homelab": (2, "frontmatter"),
        "x1": (2, "frontmatter"),
        "x2": (2, "frontmatter"),
        "mesh": (1, "inline"),
        "misc": (1, "frontmatter"),
        "zigbee": (1, "both"),
        "lighting/hue": (2, "inline"),
        "café": (1, "inline"),
    }


async def test_the_tags_filter_matches_inline_tags(hoard: Hoard) -> None:
    async def paths(filters: dict[str, Any], query: str = "") -> list[str]:
        data = await call(hoard, "vault_search", {"query": query, "filters": filters})
        return sorted(h["path"] for h in data["results"])

    assert await paths({"tags": ["lighting/hue"]}) == ["home/hub.md", "home/porch.md"]
    assert await paths({"tags": ["#CAFÉ"]}) == ["home/porch.md"]
    assert await paths({"tags": ["zigbee"]}, "runs") == ["home/hub.md"]
    assert await paths({"tags": ["42"]}) == []
    assert await paths({"tags": ["not-a-tag"]}) == []


async def test_an_inline_tag_weighs_as_a_tag_in_ranking(hoard: Hoard) -> None:
    data = await call(hoard, "vault_search", {"query": "mesh"})
    assert [h["path"] for h in data["results"]] == ["radio/b.md", "radio/a.md"]


def test_inline_tags_do_not_stand_in_for_the_frontmatter_tags_the_contract_requires(
    hoard: Hoard,
) -> None:
    flagged = {(v.path, v.field) for v in hoard.maintenance.check().violations}
    assert ("home/porch.md", "tags") in flagged
    assert not any(path == "home/hub.md" for path, _ in flagged)
