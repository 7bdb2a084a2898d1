"""The MCP surface: hoard's tools and resources on the official SDK's ``MCPServer``.

Each tool is a few lines: find the caller, call the service, return its typed result. A
refusal becomes a tool error (``isError: true``) whose first text content is the SPEC error
object as JSON; anything unexpected is logged on stderr and reported as ``io_error`` with no
internals. The caller comes from the HTTP request (set by the auth middleware) or, over stdio
and in-process, from the server's own caller (``--as NAME`` or the local default).
"""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    ListToolsResult,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)
from pydantic import ValidationError

from hoard import __version__
from hoard.app.hoard import Hoard
from hoard.core.errors import InvalidArgument
from hoard.core.policy import Caller
from hoard.surfaces.mcp.agent_tools import register_agent_tools
from hoard.surfaces.mcp.code_tool import register_code_tool
from hoard.surfaces.mcp.daily_tool import register_daily_tool
from hoard.surfaces.mcp.edit_tools import register_edit_tools
from hoard.surfaces.mcp.field_tools import register_field_tools
from hoard.surfaces.mcp.honesty_tools import register_honesty_tools
from hoard.surfaces.mcp.listing import visible_tools
from hoard.surfaces.mcp.output_schemas import OutputSchemas, published
from hoard.surfaces.mcp.prompts import register_prompts
from hoard.surfaces.mcp.read_tools import register_read_tools
from hoard.surfaces.mcp.results import CALLER_SCOPE_KEY, ToolHost, error_result
from hoard.surfaces.mcp.similar_tool import register_similar_tool
from hoard.surfaces.mcp.subscriptions import CountingBus, NoteSubscriptions
from hoard.surfaces.mcp.sync_tool import register_sync_tool
from hoard.surfaces.mcp.write_tools import register_write_tools

__all__ = ["CALLER_SCOPE_KEY", "TOOL_GROUPS", "HoardMCP"]

#: Every tool module's register function; a new group of tools is added here.
TOOL_GROUPS: tuple[Callable[[ToolHost], None], ...] = (
    register_read_tools,
    register_write_tools,
    register_edit_tools,
    register_field_tools,
    register_honesty_tools,
    register_code_tool,
    register_similar_tool,
    register_agent_tools,
    register_sync_tool,
    register_daily_tool,
)

INSTRUCTIONS = """\
hoard is a vault of Markdown notes (YAML frontmatter, [[wikilinks]]) shared by a person and
their agents. Folders are semantic: life/, tech/, projects/, references/; daily/, dreams/ and
logs/ are generated and rank lower. Each folder may have an _INDEX.md linking its notes.
Work like this: vault_search first (natural language is fine; mode="fts" for FTS5 syntax),
then vault_read the paths you need (cite path and revision), vault_links to follow links.
Every non-private note keeps the frontmatter contract: title, type, status, tags (2-5
lowercase kebab-case), updated (YYYY-MM-DD). vault_policy tells you what you may do; you are
a credential holder, not a person. Protected notes need a grant: vault_request_access.
Writes: vault_write with the revision you read (expected_revision); vault_file_note also files
the note in its folder's _INDEX.md. Facts you rely on: claim_record binds them to the source's
revision, claim_get tells you when that source changed. Summaries: synthesis_register their
sources; reads and searches then warn when a source drifted.
"""


class _Server(MCPServer):
    """The SDK's server, with two changes: an unknown tool name and arguments its schema
    rejects come back as the SPEC's ``invalid_argument`` error object, like every other
    refusal (the SDK's own text is not JSON and names pydantic internals); and
    ``tools/list`` shows a caller only the tools its scopes allow (``caller_of_request``
    names the caller of a request)."""

    caller_of_request: Callable[[object], Caller] | None = None

    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        result = await super()._handle_list_tools(ctx, params)
        if self.caller_of_request is None:
            return result
        caller = self.caller_of_request(getattr(ctx, "request", None))
        return result.model_copy(update={"tools": visible_tools(result.tools, caller)})

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        """An unknown prompt, or arguments it cannot take, is JSON-RPC's invalid params
        (-32602), as the protocol asks; a refusal from the vault keeps its SPEC object."""
        if self._prompt_manager.get_prompt(name) is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name}")
        try:
            return await super().get_prompt(name, arguments, context)
        except ValueError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from exc

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._tool_manager.get_tool(name) is None:
            return error_result(InvalidArgument(f"unknown tool {name!r}", tool=name))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                for err in cause.errors()
            )
            return error_result(InvalidArgument(f"bad arguments for {name}: {problems}", tool=name))


class HoardMCP:
    """Builds the ``MCPServer`` for one :class:`Hoard` and a default caller."""

    def __init__(
        self,
        hoard: Hoard,
        default_caller: Caller,
        site_url: str | None = None,
        output_schemas: OutputSchemas | None = None,
    ) -> None:
        self.hoard = hoard
        self.default_caller = default_caller
        self.site_url = site_url
        """The web app's address (``serve --http``), for links to notes in answers."""
        self.output_schemas = published() if output_schemas is None else output_schemas
        """The tools' output schemas: the published file's (``DERIVED``: from the types)."""
        self.bus = CountingBus()
        """Where change events for ``subscriptions/listen`` streams are published."""
        self.subscriptions = NoteSubscriptions(hoard, self.bus, self.caller_of_request)
        self.server = _Server(
            "hoard",
            title="hoard",
            description="Governed, searchable long-term memory over a folder of Markdown notes.",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
            subscriptions=self.bus,
            lifespan=self.subscriptions.lifespan(),
        )
        lowlevel = self.server._lowlevel_server
        lowlevel.add_request_handler(
            "resources/subscribe", SubscribeRequestParams, self.subscriptions.subscribe
        )
        lowlevel.add_request_handler(
            "resources/unsubscribe", UnsubscribeRequestParams, self.subscriptions.unsubscribe
        )
        self.server.caller_of_request = self.caller_of_request
        for register in TOOL_GROUPS:
            register(self)
        register_prompts(self)

    def close(self) -> None:
        """Stop the read_code workers (the server's shutdown calls this)."""
        self.hoard.code.close()

    def caller_of(self, ctx: Context) -> Caller:
        try:
            request = ctx.request_context.request
        except ValueError:
            request = None
        return self.caller_of_request(request)

    def caller_of_request(self, request: object) -> Caller:
        """The caller the HTTP guard put in the request's scope, else the default caller
        (stdio, in-process)."""
        scope = getattr(request, "scope", None)
        if isinstance(scope, dict):
            caller = scope.get(CALLER_SCOPE_KEY)
            if isinstance(caller, Caller):
                return caller
        return self.default_caller
