"""The MCP surface: hoard's tools and resources on the official SDK's ``MCPServer``.

Each tool is a few lines: find the caller, call the service, return its typed result. A
refusal becomes a tool error (``isError: true``) whose first text content is the SPEC error
object as JSON; anything unexpected is logged on stderr and reported as ``io_error`` with no
internals. The caller comes from the HTTP request (set by the auth middleware) or, over stdio
and in-process, from the server's own caller (``--as NAME`` or the local default).
"""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

import functools
import json
import logging
import threading
from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from hoard import __version__
from hoard.adapters.sandbox.pool import Sandbox
from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError, InvalidArgument, IoError, TooLarge
from hoard.core.models import (
    AccessRequestResult,
    LinksResult,
    ListResult,
    PolicyResult,
    ReadResult,
    SearchResult,
    to_json,
)
from hoard.core.policy import Caller
from hoard.surfaces.mcp.schema import records_by_keys, simplify_schema

log = logging.getLogger("hoard.mcp")

CALLER_SCOPE_KEY = "hoard.caller"

INLINE_READ_BYTES = 1 << 20
"""``vault_read`` of a note up to this size runs on the event loop; a larger one (up to the
hard cap of hundreds of MB, hashed whole for its revision) takes a worker thread."""

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

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
RECORDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


def error_result(exc: HoardError) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(exc.to_object(), ensure_ascii=False))],
        is_error=True,
    )


_COMPACT = (",", ":")
"""The text copy of a result is compact JSON: a listing's text is 10% smaller, and an agent
that reads the text rather than the structured content spends fewer tokens on it."""


def _result_of(fn: Callable[..., Any], args: Any, kwargs: Any) -> CallToolResult:
    try:
        result = fn(*args, **kwargs)
    except HoardError as exc:
        return error_result(exc)
    except Exception:
        log.exception("tool %s failed unexpectedly", fn.__name__)
        return error_result(IoError("internal error; the server log has the details"))
    data = to_json(result)
    text = json.dumps(data, ensure_ascii=False, separators=_COMPACT)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def tool_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a service call into a tool result: structured content plus its JSON text, or
    the SPEC error object. The SDK runs the call in a worker thread, so a search, a walk or
    a write that waits on a lock never holds up the event loop."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
        return _result_of(fn, args, kwargs)

    return wrapper


def inline_tool_result(
    cheap: Callable[..., bool] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """:func:`tool_result` for a call that runs on the event loop itself: only for work that
    is small, bounded and never waits (no lock, no write, no walk). The hop to a worker
    thread and back costs about 0.45 ms of CPU per call on a 2-core VM, more than such a
    call does. ``cheap(**arguments)``, when given, decides per call: when it says no, the
    call takes the worker thread after all."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
            if cheap is None or cheap(**kwargs):
                return _result_of(fn, args, kwargs)
            return await anyio.to_thread.run_sync(functools.partial(_result_of, fn, args, kwargs))

        return wrapper

    return decorate


def add_tools(srv: MCPServer, tools: list[tuple[Callable[..., Any], str, ToolAnnotations]]) -> None:
    """Register tools under their function names, with structured output whose schema is
    rewritten to validate cheaply: the same meaning, except that arrays of records are
    declared by their keys (see :mod:`hoard.surfaces.mcp.schema`)."""
    for fn, description, annotations in tools:
        srv.add_tool(
            fn,
            name=fn.__name__,
            description=description,
            annotations=annotations,
            structured_output=True,
        )
        tool = srv._tool_manager.get_tool(fn.__name__)
        if tool is not None and tool.fn_metadata.output_schema is not None:
            simple = simplify_schema(tool.fn_metadata.output_schema)
            tool.fn_metadata.output_schema = records_by_keys(simple)


class _Server(MCPServer):
    """The SDK's server, with one change: arguments its schema rejects come back as the
    SPEC's ``invalid_argument`` error object, like every other refusal (the SDK's own text
    is not JSON and names pydantic internals)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
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

    def __init__(self, hoard: Hoard, default_caller: Caller) -> None:
        self.hoard = hoard
        self.default_caller = default_caller
        self._sandbox: Sandbox | None = None
        self._sandbox_lock = threading.Lock()
        self.server = _Server(
            "hoard",
            title="hoard",
            description="Governed, searchable long-term memory over a folder of Markdown notes.",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self._register()
        from hoard.surfaces.mcp.write_tools import register_write_tools

        register_write_tools(self)
        from hoard.surfaces.mcp.honesty_tools import register_honesty_tools

        register_honesty_tools(self, hoard.honesty)
        from hoard.surfaces.mcp.code_tool import register_code_tool

        register_code_tool(self)

    def sandbox(self) -> Sandbox:
        """The read_code worker pool, started on first use (then kept warm)."""
        with self._sandbox_lock:
            if self._sandbox is None:
                self._sandbox = Sandbox(workers=2)
            return self._sandbox

    def close(self) -> None:
        """Stop the sandbox workers (the server's shutdown calls this)."""
        with self._sandbox_lock:
            if self._sandbox is not None:
                self._sandbox.close()
                self._sandbox = None

    def caller_of(self, ctx: Context) -> Caller:
        try:
            request = ctx.request_context.request
        except ValueError:
            request = None
        scope = getattr(request, "scope", None)
        if isinstance(scope, dict):
            caller = scope.get(CALLER_SCOPE_KEY)
            if isinstance(caller, Caller):
                return caller
        return self.default_caller

    def _register(self) -> None:
        hoard = self.hoard
        srv = self.server

        @tool_result
        def vault_search(
            query: Annotated[str, Field(description="What to look for; any text is valid.")],
            ctx: Context,
            limit: Annotated[int, Field(ge=1, le=100)] = 10,
            folder: Annotated[
                str | None, Field(description="Only notes below this folder.")
            ] = None,
            mode: Annotated[
                str, Field(description='"natural" (default) or "fts" (FTS5 grammar).')
            ] = "natural",
            rerank: Annotated[str, Field(description='"auto", "on" or "off".')] = "auto",
        ) -> SearchResult:
            return hoard.search(query, limit, folder, mode, rerank, caller=self.caller_of(ctx))

        def small_note(path: object = None, **_: Any) -> bool:
            size = hoard.note_size(path)
            return size is None or size <= INLINE_READ_BYTES

        @inline_tool_result(small_note)
        def vault_read(
            path: Annotated[
                str, Field(description="Vault-relative note path, e.g. tech/hue-bridge.md.")
            ],
            ctx: Context,
            offset: Annotated[int, Field(ge=0, description="Byte offset to start at.")] = 0,
            max_bytes: Annotated[
                int | None, Field(ge=1, description="Most bytes to return.")
            ] = None,
        ) -> ReadResult:
            return hoard.read(path, offset, max_bytes, caller=self.caller_of(ctx))

        @tool_result
        def vault_list(
            ctx: Context,
            path: Annotated[str, Field(description="Folder to list; empty for the root.")] = "",
            recursive: bool = False,
            limit: Annotated[int, Field(ge=1)] = 500,
        ) -> ListResult:
            return hoard.list(path, recursive, limit, caller=self.caller_of(ctx))

        @tool_result
        def vault_links(
            path: Annotated[str, Field(description="Vault-relative note path.")],
            ctx: Context,
        ) -> LinksResult:
            return hoard.links(path, caller=self.caller_of(ctx))

        @inline_tool_result()
        def vault_policy(ctx: Context) -> PolicyResult:
            return hoard.policy(self.caller_of(ctx))

        @tool_result
        def vault_request_access(
            glob: Annotated[str, Field(description="The notes you need, e.g. finance/**.")],
            reason: Annotated[str, Field(description="Why, in a sentence, for the owner.")],
            ctx: Context,
        ) -> AccessRequestResult:
            req = hoard.request_access(glob, reason, self.caller_of(ctx))
            return AccessRequestResult(
                request_id=req.request_id,
                status="pending",
                glob=req.glob,
                reason=req.reason,
                message="The vault owner can approve this with: hoard grant --approve "
                f"{req.request_id}",
            )

        tools: list[tuple[Callable[..., Any], str, ToolAnnotations]] = [
            (
                vault_search,
                "Ranked full-text search over the vault's notes (BM25, stemming, "
                "typo tolerance). Returns paths, titles, scores and snippets to cite; read the "
                "notes you need next.",
                READ_ONLY,
            ),
            (
                vault_read,
                "Read one note by its vault-relative path, with its revision (SHA-256 "
                "of the bytes) and parsed frontmatter. Large notes are read in byte ranges "
                "(offset, next_offset).",
                READ_ONLY,
            ),
            (
                vault_list,
                "List a folder of the vault as it is on disk now (notes, folders, sizes, times).",
                READ_ONLY,
            ),
            (
                vault_links,
                "A note's outgoing wikilinks (resolved or broken) and the notes that link to it.",
                READ_ONLY,
            ),
            (
                vault_policy,
                "What this caller may do here: scopes, write mode, private and "
                "protected globs, active grants.",
                READ_ONLY,
            ),
            (
                vault_request_access,
                "Ask the vault owner for a time-limited grant to see "
                "protected notes matching a glob. Records a pending request; nothing is "
                "granted until the owner approves.",
                RECORDS,
            ),
        ]
        add_tools(srv, tools)

        @srv.resource(
            "vault://{+path}",
            name="note",
            description="A note of the vault, by its vault-relative path.",
            mime_type="text/markdown",
        )
        def note_resource(path: str, ctx: Context) -> str:
            try:
                result = hoard.read(path, caller=self.caller_of(ctx))
                if result.truncated:
                    raise TooLarge(
                        "the note is larger than one response; use vault_read with offsets",
                        path=result.path,
                        size=result.size,
                    )
            except HoardError as exc:
                raise ResourceError(json.dumps(exc.to_object(), ensure_ascii=False)) from exc
            return result.content
