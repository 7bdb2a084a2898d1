"""Refusals: each one an ``isError`` result whose first text content is the SPEC error object,
and the server goes on serving."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, Caller
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def mcp(example_hoard: Hoard) -> HoardMCP:
    return HoardMCP(example_hoard, LOCAL_DEFAULT)


ERRORS: list[tuple[str, str, dict[str, Any]]] = [
    ("path_rejected", "vault_read", {"path": "../x.md"}),
    ("path_rejected", "vault_read", {"path": "/etc/passwd.md"}),
    ("path_rejected", "vault_list", {"path": "../outside"}),
    ("path_rejected", "vault_links", {"path": "tech/../../x.md"}),
    ("path_rejected", "vault_search", {"query": "hue", "folder": "../x"}),
    ("path_rejected", "vault_read", {"path": ".obsidian/workspace.md"}),
    ("path_rejected", "vault_read", {"path": "hoard.toml"}),
    ("path_rejected", "vault_read", {"path": "tech\\hue-bridge.md"}),
    ("path_rejected", "vault_read", {"path": "tech/hue-bridge.md\x00.md"}),
    ("not_found", "vault_read", {"path": "tech/no-such-note.md"}),
    ("not_found", "vault_links", {"path": "tech/no-such-note.md"}),
    ("not_found", "vault_list", {"path": "no-such-folder"}),
    ("invalid_argument", "vault_search", {"query": "hue", "mode": "regex"}),
    ("invalid_argument", "vault_search", {"query": "hue", "rerank": "sometimes"}),
    ("invalid_argument", "vault_search", {"query": "hue", "semantic": "maybe"}),
    (
        "invalid_argument",
        "vault_archive",
        {"path": "tech/hue-bridge.md", "reason": "bored", "expected_revision": "x"},
    ),
    ("invalid_argument", "vault_read", {"path": "tech/hue-bridge.md", "offset": 10**7}),
    ("invalid_argument", "vault_list", {"limit": 10**7}),
    ("invalid_argument", "vault_request_access", {"glob": "secret/**", "reason": "  "}),
    ("bad_query", "vault_search", {"query": "foo AND", "mode": "fts"}),
    ("bad_query", "vault_search", {"query": '"unbalanced', "mode": "fts"}),
]


@pytest.mark.parametrize(
    ("code", "name", "args"), ERRORS, ids=[f"{c}-{n}-{i}" for i, (c, n, _) in enumerate(ERRORS)]
)
async def test_a_refused_call_is_a_tool_error_with_the_spec_code_and_serving_goes_on(
    mcp: HoardMCP, tool_error, ok, code: str, name: str, args: dict[str, Any]
) -> None:
    async with Client(mcp.server) as c:
        err = tool_error(await c.call_tool(name, args))
        assert err["error"] == code
        assert err["message"]
        assert ok(await c.call_tool("vault_search", {"query": "hue bridge"}))["results"]


async def test_a_bad_fts_query_quotes_the_problem(mcp: HoardMCP, tool_error) -> None:
    async with Client(mcp.server) as c:
        err = tool_error(await c.call_tool("vault_search", {"query": "foo AND", "mode": "fts"}))
    assert err["error"] == "bad_query"
    assert "syntax" in err["message"].lower()


async def test_reading_past_the_end_says_how_big_the_note_is(mcp: HoardMCP, tool_error) -> None:
    async with Client(mcp.server) as c:
        size = (await c.call_tool("vault_read", {"path": "tech/hue-bridge.md"})).structured_content[
            "size"
        ]
        err = tool_error(
            await c.call_tool("vault_read", {"path": "tech/hue-bridge.md", "offset": size + 1})
        )
    assert err["error"] == "invalid_argument"
    assert err["size"] == size


async def test_reading_at_exactly_the_end_is_an_empty_finished_read(mcp: HoardMCP, ok) -> None:
    async with Client(mcp.server) as c:
        size = ok(await c.call_tool("vault_read", {"path": "tech/hue-bridge.md"}))["size"]
        data = ok(await c.call_tool("vault_read", {"path": "tech/hue-bridge.md", "offset": size}))
    assert data["content"] == ""
    assert data["next_offset"] is None
    assert data["truncated"] is False


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("vault_search", {"query": "hue", "limit": 0}),
        ("vault_search", {"query": "hue", "limit": 101}),
        ("vault_list", {"limit": 0}),
        ("vault_read", {"path": "tech/hue-bridge.md", "max_bytes": 0}),
        ("vault_read", {"path": "tech/hue-bridge.md", "offset": -1}),
    ],
)
async def test_out_of_range_numbers_are_refused_and_serving_goes_on(
    mcp: HoardMCP, ok, name: str, args: dict[str, Any]
) -> None:
    async with Client(mcp.server) as c:
        r = await c.call_tool(name, args)
        assert r.is_error
        assert ok(await c.call_tool("vault_policy", {}))["caller"] == "local"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("vault_list", {"limit": 0}),
        ("vault_read", {}),
        ("vault_search", {"query": "hue", "limit": "many"}),
    ],
    ids=["out-of-range", "missing-required", "wrong-type"],
)
async def test_arguments_the_input_schema_rejects_still_get_the_spec_error_object(
    mcp: HoardMCP, name: str, args: dict[str, Any]
) -> None:
    """SPEC 4, Errors: *a refused call* is an MCP tool error whose first text content is
    ``{"error": CODE, "message": ...}`` — including calls refused by schema validation."""
    async with Client(mcp.server) as c:
        r = await c.call_tool(name, args)
    assert r.is_error
    text = r.content[0].text
    assert "pydantic" not in text
    obj = json.loads(text)
    assert obj["error"] == "invalid_argument"
    assert obj["message"]


async def test_a_mode_outside_its_enum_is_invalid_argument_naming_the_modes(
    mcp: HoardMCP, tool_error
) -> None:
    async with Client(mcp.server) as c:
        err = tool_error(await c.call_tool("vault_search", {"query": "hue", "mode": "regex"}))
    assert err["error"] == "invalid_argument"
    assert "mode" in err["message"]
    assert all(m in err["message"] for m in ("natural", "fts", "typeahead"))
    assert "pydantic" not in err["message"]


async def test_the_not_found_for_a_missing_folder_names_that_folder(
    mcp: HoardMCP, tool_error
) -> None:
    async with Client(mcp.server) as c:
        err = tool_error(await c.call_tool("vault_list", {"path": "no-such-folder"}))
    assert err["error"] == "not_found"
    assert err["path"] == "no-such-folder"
    assert "no-such-folder/x" not in err["message"]


@pytest.fixture(scope="module")
def writer_only(example_hoard: Hoard) -> HoardMCP:
    return HoardMCP(example_hoard, Caller("w", frozenset({"write"}), "direct"))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("vault_search", {"query": "hue"}),
        ("vault_read", {"path": "tech/hue-bridge.md"}),
        ("vault_list", {}),
        ("vault_links", {"path": "tech/hue-bridge.md"}),
        ("vault_request_access", {"glob": "secret/**", "reason": "curious"}),
    ],
)
async def test_a_caller_without_the_read_scope_is_forbidden(
    writer_only: HoardMCP, tool_error, ok, name: str, args: dict[str, Any]
) -> None:
    async with Client(writer_only.server) as c:
        err = tool_error(await c.call_tool(name, args))
        assert err["error"] == "forbidden"
        assert err["scope"] == "read"
        # The policy tool still answers: it is how a caller learns what it may do.
        policy = ok(await c.call_tool("vault_policy", {}))
    assert policy["caller"] == "w"
    assert policy["scopes"] == ["write"]


async def test_a_refusal_changes_nothing_on_disk(mcp: HoardMCP, shared_example_vault) -> None:
    before = sorted(
        (str(p.relative_to(shared_example_vault)), p.stat().st_mtime_ns)
        for p in shared_example_vault.rglob("*")
    )
    async with Client(mcp.server) as c:
        for _, name, args in ERRORS:
            assert (await c.call_tool(name, args)).is_error
    after = sorted(
        (str(p.relative_to(shared_example_vault)), p.stat().st_mtime_ns)
        for p in shared_example_vault.rglob("*")
    )
    assert before == after
    assert not (shared_example_vault.parent / "x.md").exists()
