"""The read_code tool: chained searches, reads and link hops in one sandboxed script."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.models import RunResult
from hoard.surfaces.mcp.results import READ_ONLY, ToolHost, add_tools, tool_result

CODE_DESCRIPTION = (
    "The body of an async JavaScript function; its return value (JSON) is the result. "
    'Inside: await call("search" | "read" | "links" | "list", args) and console.log.'
)


def register_code_tool(mcp: ToolHost) -> None:
    hoard = mcp.hoard

    @tool_result
    def read_code_tool(
        code: Annotated[str, Field(description=CODE_DESCRIPTION)], ctx: Context
    ) -> RunResult:
        return hoard.code.run(code, caller=mcp.caller_of(ctx))

    read_code_tool.__name__ = "read_code"
    add_tools(
        mcp,
        [
            (
                read_code_tool,
                "Run read-only JavaScript over the vault in a sandbox: several searches, reads "
                "and link hops in one call, with your own rights. Limits: 8 s, 32 MiB, 20 KB "
                "of code, 64 calls, 1 MiB result.",
                READ_ONLY,
            )
        ],
    )
