"""The orientation tools in ``hoard bench``: ``vault_recent`` (the newest 50 changes) and
``vault_context`` (a linked note in a 16 KiB budget) through the same MCP session as the
other rows, each with its p50 as a ratio to the session's MCP floor (``vault_policy``), the
measure their target is stated in (at most twice the floor)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hoard.benchmark.mcp_runner import Runner

FLOOR_RATIO_TARGET = 2.0


def _recent_check(i: int, d: dict[str, Any]) -> str | None:
    return None if isinstance(d.get("changes"), list) and d.get("cursor") else "no changes list"


def _context_check(i: int, d: dict[str, Any]) -> str | None:
    if not d.get("parts") or d.get("used_bytes", 1 << 30) > d.get("budget_bytes", 0):
        return f"parts {len(d.get('parts') or [])} used {d.get('used_bytes')}"
    return None


def floor_ratio(r: Runner, p50: float) -> str:
    floor = next((row for row in r.rows if row.key == "policy"), None)
    if floor is None or not floor.samples_ms:
        return "no floor row to compare with"
    ratio = p50 / floor.p50
    verdict = "met" if ratio <= FLOOR_RATIO_TARGET else "missed"
    return f"{ratio:.2f}x the MCP floor's p50 ({floor.p50:.2f} ms; target <= 2x: {verdict})"


async def orient_phases(r: Runner, link_notes: Sequence[str]) -> None:
    row, _ = await r.phase(
        "recent", "vault_recent, newest 50", "vault_recent", lambda i: {}, _recent_check
    )
    row.note = floor_ratio(r, row.p50)
    notes = list(link_notes)
    row, _ = await r.phase(
        "context",
        "vault_context, 16 KiB budget",
        "vault_context",
        lambda i: {"path": notes[i % len(notes)]},
        _context_check,
    )
    row.note = f"{len(notes)} notes; " + floor_ratio(r, row.p50)
