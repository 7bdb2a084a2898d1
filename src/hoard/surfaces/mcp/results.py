"""What every MCP tool shares: turning a use-case's result (or refusal) into a tool result,
registering tools with their cheap-to-validate output schemas, the annotations, and the
:class:`ToolHost` a tool module is given (the server, the app and the caller of a request).
"""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

import functools
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import TypeAdapter

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError, IoError
from hoard.core.models import to_json
from hoard.core.policy import Caller
from hoard.surfaces.caller import CALLER_SCOPE_KEY as CALLER_SCOPE_KEY
from hoard.surfaces.mcp.output_schemas import OutputSchemas, derived_schema
from hoard.surfaces.mcp.schema import records_by_keys, simplify_schema

log = logging.getLogger("hoard.mcp")


class ToolHost(Protocol):
    """What a tool module needs to register its tools: the SDK server to add them to, the
    app to call, and who is calling in a request."""

    @property
    def hoard(self) -> Hoard: ...

    @property
    def server(self) -> MCPServer: ...

    @property
    def output_schemas(self) -> OutputSchemas:
        """Where the tools' output schemas come from (see :mod:`.output_schemas`)."""
        ...

    @property
    def site_url(self) -> str | None:
        """The address people open the web app at (``None`` over stdio and in process)."""
        ...

    def caller_of(self, ctx: Context) -> Caller: ...


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


def union_schema(types: tuple[type, ...]) -> dict[str, Any]:
    """An output schema for a tool whose result is one of ``types`` (dataclasses): an object
    that is any of their schemas. The SDK would wrap a ``Union`` return type in
    ``{"result": ...}``; this keeps the result's own shape and still declares every field."""
    branches = [TypeAdapter(t).json_schema(mode="serialization") for t in types]
    defs: dict[str, Any] = {}
    for b in branches:
        defs.update(b.pop("$defs", {}))
    schema: dict[str, Any] = {"type": "object", "anyOf": branches}
    if defs:
        schema["$defs"] = defs
    return schema


def set_output_schema(host: ToolHost, name: str, types: tuple[type, ...]) -> None:
    """Declare tool ``name``'s result as one of ``types`` (see :func:`union_schema`)."""
    tool = host.server._tool_manager.get_tool(name)
    if tool is not None:
        tool.fn_metadata.output_schema = host.output_schemas.of(
            name, lambda: records_by_keys(simplify_schema(union_schema(types)))
        )


def add_tools(host: ToolHost, tools: list[tuple[Callable[..., Any], str, ToolAnnotations]]) -> None:
    """Register tools under their function names, each with its published output schema
    (:mod:`.output_schemas`): the same meaning as the result type's, except that arrays of
    records are declared by their keys (see :mod:`hoard.surfaces.mcp.schema`). The SDK
    builds only the arguments' model; the tool's result is what the function returns."""
    for fn, description, annotations in tools:
        host.server.add_tool(
            fn,
            name=fn.__name__,
            description=description,
            annotations=annotations,
            structured_output=False,
        )
        tool = host.server._tool_manager.get_tool(fn.__name__)
        if tool is not None:
            tool.fn_metadata.output_schema = host.output_schemas.of(
                fn.__name__, functools.partial(derived_schema, fn)
            )
