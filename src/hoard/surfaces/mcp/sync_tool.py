"""``vault_sync_status``: where the vault stands with its git remote. Read-only; the
owner runs a sync itself from the CLI, the JSON API or the web app."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from mcp.server.mcpserver import Context

from hoard.core.sync_results import SyncStatus
from hoard.surfaces.mcp.results import READ_ONLY, ToolHost, add_tools, tool_result

DESCRIPTION = (
    "Where the vault stands with its git remote: remote and branch, the last successful pull "
    "and push (time, commit), commits not yet pushed (count, oldest's age), open conflicts "
    "(both versions kept), and the last error in words. enabled is false without a remote."
)


def register_sync_tool(mcp: ToolHost) -> None:
    sync = mcp.hoard.sync

    @tool_result
    def vault_sync_status(ctx: Context) -> SyncStatus:
        return sync.status(caller=mcp.caller_of(ctx))

    add_tools(mcp, [(vault_sync_status, DESCRIPTION, READ_ONLY)])
