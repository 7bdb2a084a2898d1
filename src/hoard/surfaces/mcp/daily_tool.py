"""The vault_daily tool: the daily note for a date, where Obsidian files it, made from the
daily template on request."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.daily import DailyResult
from hoard.surfaces.mcp.results import ToolHost, add_tools, tool_result
from hoard.surfaces.mcp.write_tools import WRITES

DESCRIPTION = (
    "The daily note for a date (default today), in the folder and file-name format of "
    ".obsidian/daily-notes.json or [daily] in hoard.toml. status: found, missing, written "
    "or proposed. With create=true a missing one is made from the daily template "
    "({{date}}, {{time}}, {{date:FORMAT}}, {{title}} filled; the contract's frontmatter "
    "added) through vault_write's gates; in propose mode it is a proposal."
)


def register_daily_tool(mcp: ToolHost) -> None:
    hoard = mcp.hoard

    @tool_result
    def vault_daily(
        ctx: Context,
        date: Annotated[
            str | None, Field(description="The day, YYYY-MM-DD; default today (local time).")
        ] = None,
        create: Annotated[
            bool, Field(description="Make the note from the template if it does not exist.")
        ] = False,
    ) -> DailyResult:
        return hoard.daily(date, create, caller=mcp.caller_of(ctx))

    add_tools(mcp, [(vault_daily, DESCRIPTION, WRITES)])
