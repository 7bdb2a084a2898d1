"""The vault_similar tool: the notes nearest in meaning to a note."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.models import SimilarResult
from hoard.surfaces.mcp.results import READ_ONLY, ToolHost, add_tools, tool_result


def register_similar_tool(mcp: ToolHost) -> None:
    hoard = mcp.hoard

    @tool_result
    def vault_similar(
        path: Annotated[str, Field(description="Vault-relative note path.")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
    ) -> SimilarResult:
        return hoard.similarity.similar(path, limit, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (
                vault_similar,
                "The notes closest in meaning to a note, by a local semantic model (what "
                "else was written about this; link and duplicate hints). Needs "
                "[semantic] enabled; otherwise the answer says so and is empty.",
                READ_ONLY,
            )
        ],
    )
