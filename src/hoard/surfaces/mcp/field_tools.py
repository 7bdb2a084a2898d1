"""``vault_tags``: the tags of the notes the caller can see, with counts. The
field filters themselves are the ``filters`` argument of ``vault_search``."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.models import TagsResult
from hoard.surfaces.mcp.results import READ_ONLY, ToolHost, add_tools, tool_result


def register_field_tools(mcp: ToolHost) -> None:
    hoard = mcp.hoard

    @tool_result
    def vault_tags(
        ctx: Context,
        folder: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
    ) -> TagsResult:
        return hoard.searching.fields.tags(folder, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (
                vault_tags,
                "Every tag in the notes you can see (frontmatter tags and inline #tags), with "
                "how many notes carry it and where they write it (source: frontmatter, inline "
                "or both), most used first. Find the notes of a tag with vault_search filters.",
                READ_ONLY,
            )
        ],
    )
