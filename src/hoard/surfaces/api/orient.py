"""Routes an agent orients itself with: what changed (``GET /recent``) and a note with its
neighbourhood (``GET /context/{path}``), the JSON twins of ``vault_recent`` and
``vault_context``."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.agent_results import ContextResult, RecentResult
from hoard.surfaces.api.framework import Call, Op, Param


def orient_ops(hoard: Hoard) -> list[Op]:
    def recent(c: Call) -> RecentResult:
        p = c.params
        return hoard.recent_changes.recent(
            caller=c.caller,
            since=p["since"],
            cursor=p["cursor"],
            folder=p["folder"],
            limit=p["limit"],
        )

    def context(c: Call) -> ContextResult:
        return hoard.note_context.context(
            c.params["path"], caller=c.caller, budget_bytes=c.params["budget_bytes"]
        )

    return [
        Op(
            method="GET",
            path="/recent",
            op_id="recent",
            summary="What changed, newest first, with who changed it; pass the cursor back "
            "to page on, then to hear only what changed since.",
            tag="search",
            handler=recent,
            ok={200: RecentResult},
            params=(
                Param("since", str, "Only changes after this time (ISO 8601)."),
                Param("cursor", str, "A cursor an earlier answer returned."),
                Param("folder", str, "Only notes below this folder."),
                Param("limit", int, "Most changes.", 50, minimum=1, maximum=200),
            ),
        ),
        Op(
            method="GET",
            path="/context/{path}",
            op_id="context",
            summary="A note and its neighbourhood (links, backlinks, folder index entry, "
            "similar notes, claims, summary state, proposals) within a byte budget.",
            tag="search",
            handler=context,
            ok={200: ContextResult},
            params=(
                Param(
                    "path",
                    str,
                    "The note, vault-relative.",
                    required=True,
                    where="path",
                    slashes=True,
                ),
                Param(
                    "budget_bytes", int, "Most bytes of text.", 16384, minimum=512, maximum=262144
                ),
            ),
        ),
    ]
