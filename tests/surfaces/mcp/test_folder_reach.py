"""Folders per caller through the MCP SDK's client: a caller limited to read globs never
meets a note outside them (not named, not counted, not hinted: it answers like a note that
does not exist), and a write outside its write globs is forbidden. The owner sees all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import note_text as note

pytestmark = pytest.mark.anyio

OUT_WORD = "zanzibarquokka"
"""A word only notes outside alice's folders hold (one of them protected as well)."""
SHARED_WORD = "marmalade"
"""A word in a protected note inside her folders and in one outside them."""

ALICE = Caller(
    "alice",
    frozenset({"read", "write", "confirm"}),
    "direct",
    read_globs=("team/**", "shared/**"),
    write_globs=("team/alice/**",),
)

OUTSIDE = ("other/plain.md", "secret/plans.md")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "vault"
    (root / "hoard.toml").parent.mkdir(parents=True)
    (root / "hoard.toml").write_text(
        'protected = ["secret/**", "team/locked/**"]\n[mcp]\nchatgpt_tools = true\n',
        encoding="utf-8",
    )
    files = {
        "team/alice/mine.md": note("Mine", "Alice's note. See [[theirs]] and [[plain]]."),
        "team/bob/theirs.md": note("Theirs", "Bob's note, links [[mine]]."),
        "team/locked/vault.md": note("Locked", f"A locked {SHARED_WORD} note."),
        "shared/common.md": note("Common", "Everyone's note about gardening."),
        "other/plain.md": note("Plain", f"The {OUT_WORD} and {SHARED_WORD}. See [[mine]]."),
        "secret/plans.md": note("Plans", f"The {OUT_WORD} plan. See [[mine]]."),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Hoard(root, tmp_path / "state") as h:
        h.writes.write(
            "other/plain.md",
            note("Plain", f"The {OUT_WORD} and {SHARED_WORD}, revised. See [[mine]]."),
            h.reading.read("other/plain.md", caller=OWNER).revision,
            caller=OWNER,
        )
        yield h


def text_of(result: CallToolResult) -> str:
    return json.dumps(
        [c.model_dump() for c in result.content] + [result.structured_content], ensure_ascii=False
    )


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, result.content
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


def assert_unnamed(text: str, echo: dict[str, Any] | None = None) -> None:
    """Nothing outside alice's folders shows: neither its folders nor its words (besides
    an echo of what the caller itself sent: ``echo``)."""
    for value in (echo or {}).values():
        if isinstance(value, str) and value:
            text = text.replace(value, "")
    low = text.lower()
    for word in ("other/", "secret", "plain.md", "plans", OUT_WORD):
        assert word not in low, (word, text)


async def call(hoard: Hoard, tool: str, args: dict[str, Any], who: Caller = ALICE) -> Any:
    mcp = HoardMCP(hoard, who)
    try:
        async with Client(mcp.server) as c:
            return await c.call_tool(tool, args)
    finally:
        mcp.close()


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("vault_search", {"query": OUT_WORD}),
        ("vault_search", {"query": OUT_WORD, "mode": "fts"}),
        ("vault_search", {"query": "", "filters": {"tag": []}}),
        ("vault_list", {"recursive": True}),
        ("vault_list", {}),
        ("vault_links", {"path": "team/alice/mine.md"}),
        ("vault_tags", {}),
        ("vault_recent", {}),
        ("vault_context", {}),
        ("vault_proposals", {}),
        ("vault_policy", {}),
        ("vault_similar", {"path": "team/alice/mine.md"}),
        ("search", {"query": OUT_WORD}),
    ],
    ids=lambda v: v if isinstance(v, str) else json.dumps(v),
)
async def test_no_answer_names_or_hints_a_note_outside_the_callers_folders(
    hoard: Hoard, tool: str, args: dict[str, Any]
) -> None:
    result = await call(hoard, tool, args)
    assert_unnamed(text_of(result), args)


@pytest.mark.parametrize("mode", ["natural", "fts"])
async def test_a_search_for_a_word_only_outside_the_folders_finds_nothing_and_counts_nothing(
    hoard: Hoard, mode: str
) -> None:
    found = await call(hoard, "vault_search", {"query": OUT_WORD, "mode": mode})
    assert not found.is_error, found.content
    assert found.structured_content["results"] == []
    assert found.structured_content["hidden_protected"] == 0


async def test_a_protected_note_inside_the_folders_is_still_counted_but_one_outside_is_not(
    hoard: Hoard,
) -> None:
    found = (await call(hoard, "vault_search", {"query": SHARED_WORD})).structured_content
    assert found["results"] == []
    assert found["hidden_protected"] == 1, "only team/locked/vault.md is counted"


@pytest.mark.parametrize("path", OUTSIDE)
@pytest.mark.parametrize("tool", ["vault_read", "vault_links", "fetch"])
async def test_a_note_outside_the_folders_answers_exactly_like_a_missing_one(
    hoard: Hoard, tool: str, path: str
) -> None:
    key = "id" if tool == "fetch" else "path"
    hidden = error_of(await call(hoard, tool, {key: path}))
    missing = error_of(await call(hoard, tool, {key: "team/none.md"}))
    assert hidden["error"] == missing["error"] == "not_found"
    assert set(hidden) == set(missing)
    assert hidden["message"].replace(path, "X") == missing["message"].replace("team/none.md", "X")
    assert OUT_WORD not in json.dumps(hidden)


@pytest.mark.parametrize("folder", ["other", "secret", "other/deep"])
async def test_listing_a_folder_outside_the_folders_answers_like_a_missing_folder(
    hoard: Hoard, folder: str
) -> None:
    hidden = error_of(await call(hoard, "vault_list", {"path": folder}))
    missing = error_of(await call(hoard, "vault_list", {"path": "team/none"}))
    assert hidden["error"] == missing["error"] == "not_found"
    assert set(hidden) == set(missing)
    assert hidden["message"].replace(folder, "X") == missing["message"].replace("team/none", "X")


@pytest.mark.parametrize("path", OUTSIDE)
async def test_the_history_of_a_note_outside_the_folders_is_that_of_a_missing_note(
    hoard: Hoard, path: str
) -> None:
    hidden = (await call(hoard, "vault_history", {"path": path})).structured_content
    missing = (await call(hoard, "vault_history", {"path": "team/none.md"})).structured_content
    assert hidden == {**missing, "path": path}
    assert hidden["revisions"] == [] and hidden["events"] == []


@pytest.mark.parametrize("path", OUTSIDE)
async def test_a_resource_outside_the_folders_is_refused_exactly_like_a_missing_one(
    hoard: Hoard, path: str
) -> None:
    mcp = HoardMCP(hoard, ALICE)
    try:
        async with Client(mcp.server) as c:
            with pytest.raises(MCPError) as refused:
                await c.read_resource(f"vault://{path}")
            with pytest.raises(MCPError) as missing:
                await c.read_resource("vault://team/none.md")
            listed = await c.list_resources()
    finally:
        mcp.close()
    assert refused.value.code == missing.value.code
    assert refused.value.message.replace(path, "X") == missing.value.message.replace(
        "team/none.md", "X"
    )
    assert_unnamed(json.dumps([r.model_dump(mode="json") for r in listed.resources]))


@pytest.mark.parametrize(
    "script",
    [
        f'return await call("search", {{query: "{OUT_WORD}"}});',
        'return await call("list", {path: "", recursive: true});',
        'return await call("links", {path: "team/alice/mine.md"});',
    ],
    ids=["search", "list", "links"],
)
async def test_read_code_host_methods_never_name_a_note_outside_the_folders(
    hoard: Hoard, script: str
) -> None:
    result = await call(hoard, "read_code", {"code": script})
    assert not result.is_error, result.content
    assert_unnamed(text_of(result), {"query": OUT_WORD})


@pytest.mark.parametrize("path", OUTSIDE)
async def test_read_code_reading_a_note_outside_the_folders_is_not_found(
    hoard: Hoard, path: str
) -> None:
    result = await call(
        hoard, "read_code", {"code": f'return await call("read", {{path: "{path}"}});'}
    )
    assert result.is_error
    assert "not_found" in text_of(result)
    assert OUT_WORD not in text_of(result)


def edit_args(path: str, hoard: Hoard) -> dict[str, Any]:
    return {
        "path": path,
        "edits": [{"op": "set_fields", "fields": {"status": "active"}}],
        "expected_revision": hoard.reading.read(path, caller=OWNER).revision,
    }


def write_probes(hoard: Hoard) -> list[tuple[str, dict[str, Any]]]:
    rev = {p: hoard.reading.read(p, caller=OWNER).revision for p in ("team/bob/theirs.md",)}
    rev["team/alice/mine.md"] = hoard.reading.read("team/alice/mine.md", caller=OWNER).revision
    body = note("New", "x")
    return [
        ("vault_write", {"path": "other/new.md", "content": body}),
        ("vault_write", {"path": "secret/plans.md", "content": body}),
        ("vault_write", {"path": "team/bob/new.md", "content": body}),
        ("vault_write", {"path": "shared/new.md", "content": body, "dry_run": True}),
        ("vault_edit", edit_args("team/bob/theirs.md", hoard)),
        ("vault_edit", edit_args("other/plain.md", hoard)),
        (
            "vault_archive",
            {
                "path": "team/bob/theirs.md",
                "reason": "archived",
                "expected_revision": rev["team/bob/theirs.md"],
            },
        ),
        ("vault_file_note", {"path": "shared/filed.md", "content": body}),
        (
            "vault_move",
            {
                "path": "team/alice/mine.md",
                "new_path": "shared/mine.md",
                "expected_revision": rev["team/alice/mine.md"],
            },
        ),
        (
            "vault_move",
            {
                "path": "team/alice/mine.md",
                "new_path": "other/mine.md",
                "expected_revision": rev["team/alice/mine.md"],
            },
        ),
        (
            "vault_move",
            {
                "path": "team/bob/theirs.md",
                "new_path": "team/alice/theirs.md",
                "expected_revision": rev["team/bob/theirs.md"],
            },
        ),
        (
            "vault_move",
            {
                "path": "secret/plans.md",
                "new_path": "team/alice/plans.md",
                "expected_revision": "r-anything",
            },
        ),
    ]


WRITE_CASES = [
    "write-outside-reach",
    "write-protected-outside-reach",
    "write-readable-folder",
    "write-shared-dry-run",
    "edit-readable-note",
    "edit-outside-reach",
    "archive-readable-note",
    "file-note-outside-write",
    "move-to-readable-folder",
    "move-outside-reach",
    "move-from-readable-folder",
    "move-from-outside-reach",
]


@pytest.mark.parametrize("case", WRITE_CASES)
async def test_a_write_outside_the_write_folders_is_forbidden_and_changes_nothing(
    hoard: Hoard, case: str
) -> None:
    tool, args = dict(zip(WRITE_CASES, write_probes(hoard), strict=True))[case]
    before = {p: hoard.reading.read(p, caller=OWNER).revision for p in ("team/alice/mine.md",)}
    err = error_of(await call(hoard, tool, args))
    assert err["error"] == "forbidden", err
    assert "outside the folders you may write" in err["message"]
    assert_unnamed(json.dumps(err), args)
    assert (
        hoard.reading.read("team/alice/mine.md", caller=OWNER).revision
        == before["team/alice/mine.md"]
    )


async def test_a_write_inside_the_write_folders_is_made(hoard: Hoard) -> None:
    made = await call(
        hoard, "vault_write", {"path": "team/alice/new.md", "content": note("New", "x")}
    )
    assert not made.is_error, made.content
    assert hoard.reading.read("team/alice/new.md", caller=OWNER).path == "team/alice/new.md"


async def test_a_move_inside_the_write_folders_leaves_readable_linkers_alone_and_names_them(
    hoard: Hoard,
) -> None:
    rev = hoard.reading.read("team/alice/mine.md", caller=OWNER).revision
    moved = await call(
        hoard,
        "vault_move",
        {
            "path": "team/alice/mine.md",
            "new_path": "team/alice/deep/mine.md",
            "expected_revision": rev,
            "dry_run": True,
        },
    )
    assert not moved.is_error, moved.content
    out = moved.structured_content
    assert out["not_rewritten"] == ["team/bob/theirs.md"]
    assert out["hidden_not_rewritten"] == 0, "linkers outside the folders are not counted"
    assert_unnamed(text_of(moved))


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("vault_search", {"query": OUT_WORD}),
        ("vault_read", {"path": "other/plain.md"}),
        ("vault_list", {"recursive": True}),
    ],
    ids=["search", "read", "list"],
)
async def test_the_owner_still_sees_every_note(
    hoard: Hoard, tool: str, args: dict[str, Any]
) -> None:
    result = await call(hoard, tool, args, OWNER)
    assert not result.is_error, result.content
    assert "other/plain.md" in text_of(result)


async def test_a_caller_without_folders_is_unchanged(hoard: Hoard) -> None:
    plain = Caller("agent", frozenset({"read", "write"}), "direct")
    found = (await call(hoard, "vault_search", {"query": OUT_WORD}, plain)).structured_content
    assert [r["path"] for r in found["results"]] == ["other/plain.md"]
    assert found["hidden_protected"] == 1, "secret/plans.md is protected and counted"
