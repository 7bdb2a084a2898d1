"""The HTTP phases of the edit tools, beside ``vault_write``'s rows: an append to a 40 KB
note (``vault_edit``), a move of a note with 20 backlinks (``vault_move``), and a search
filtered by the vault's most used tag against the same queries unfiltered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hoard.benchmark.corpus import SCRATCH, scratch_note
from hoard.benchmark.mcp_runner import Check, Runner, error_text, structured

EDIT_NOTE = f"{SCRATCH}/edit-40k.md"
MOVE_NAMES = (f"{SCRATCH}/bench-move-a.md", f"{SCRATCH}/bench-move-b.md")
BACKLINKS = 20


def _chained(holder: dict[str, Any], want: str) -> Check:
    """Check the status and keep the new revision for the next call."""

    def check(i: int, d: dict[str, Any]) -> str | None:
        holder["rev"] = d.get("revision")
        return None if d.get("status") == want else f"status {d.get('status')!r}, want {want!r}"

    return check


async def _write(r: Runner, path: str, content: str) -> str:
    res = await r.c.call_tool("vault_write", {"path": path, "content": content})
    data = structured(res)
    if res.is_error or not data or data.get("status") != "written":
        raise RuntimeError(f"could not write {path}: {error_text(res)}")
    return str(data["revision"])


async def edit_phases(r: Runner, pool: str, query: Callable[[int], str]) -> None:
    holder: dict[str, Any] = {
        "rev": await _write(r, EDIT_NOTE, scratch_note("Edit 40k", 40_000, pool, 0))
    }
    row, _ = await r.phase(
        "edit_append",
        "vault_edit: append a line to a 40 KB note",
        "vault_edit",
        lambda i: {
            "path": EDIT_NOTE,
            "edits": [{"op": "append", "text": f"Appended line {i}."}],
            "expected_revision": holder["rev"],
        },
        _chained(holder, "written"),
    )
    row.note = "each call edits the revision the previous one wrote"

    mover: dict[str, Any] = {
        "rev": await _write(r, MOVE_NAMES[0], scratch_note("Bench move", 600, pool, 7))
    }
    stem = MOVE_NAMES[0].rpartition("/")[2][:-3]
    for k in range(BACKLINKS):
        body = scratch_note(f"Bench backlink {k}", 500, pool, k * 31)
        await _write(r, f"{SCRATCH}/backlink-{k}.md", body.rstrip("\n") + f" [[{stem}]]\n")
    row, _ = await r.phase(
        "move_20",
        f"vault_move: a note with {BACKLINKS} backlinks (rename, links rewritten)",
        "vault_move",
        lambda i: {
            "path": MOVE_NAMES[i % 2],
            "new_path": MOVE_NAMES[(i + 1) % 2],
            "expected_revision": mover["rev"],
        },
        _chained(mover, "moved"),
    )
    row.note = f"{BACKLINKS} linking notes rewritten per move, one journaled transaction"

    res = await r.c.call_tool("vault_tags", {})
    tags = (structured(res) or {}).get("tags") or []
    if not tags:
        r.row("search_filtered", "vault_search filtered by a tag").skipped = "no tags"
        return
    top = tags[0]["tag"]
    row, _ = await r.phase(
        "search_filtered",
        "vault_search filtered by the most used tag",
        "vault_search",
        lambda i: {"query": query(i), "filters": {"tags": [top]}},
    )
    row.note = f"tag {top!r} ({tags[0]['count']} notes); same queries as vault_search"
