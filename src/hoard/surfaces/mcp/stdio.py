"""Serving MCP over stdio so that every line on stdin gets an answer.

The SDK's stdio transport drops a line it cannot validate (a lone surrogate such as
``"\\ud800"`` in a string, an integer of thousands of digits): the client waits for an answer
that never comes. Here such a line is answered as JSON-RPC asks: ``-32602`` (invalid params)
for a request whose id can still be read, ``-32600`` for another request that is not a valid
JSON-RPC message, ``-32700`` (parse error, id ``null``) when not even that can be read. A
notification that cannot be understood needs no answer. A message nested deeper than
:data:`~hoard.core.json_depth.MAX_JSON_DEPTH` is a parse error too, answered with its id when
a shallow scan can read it (a recursive parser would otherwise run out of stack on it).
"""

from __future__ import annotations

import json
import logging

import anyio
import mcp_types as types
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from hoard.core.json_depth import MAX_JSON_DEPTH, nests_deeper, shallow_id, too_deep

log = logging.getLogger("hoard.mcp")

_MAX_INT_DIGITS = 4000


def _small_int(text: str) -> int:
    """Python refuses to convert integers of more than 4,300 digits; only the id matters
    here, so a huge number elsewhere in the line reads as 0."""
    return int(text) if len(text.lstrip("-")) <= _MAX_INT_DIGITS else 0


def _message_of(exc: Exception) -> object:
    """What the SDK failed to validate, as far as it can be read: pydantic keeps the raw
    line as the input of a ``json_invalid`` error (a line nested too deep never gets here),
    and the parsed object as the input of an error about the message's shape."""
    if not isinstance(exc, ValidationError):
        return None
    raw = _raw_line(exc)
    if raw is not None:
        try:
            return json.loads(raw, parse_int=_small_int)
        except ValueError:
            return None
    for err in exc.errors():
        given = err.get("input")
        if isinstance(given, dict) and ("id" in given or "method" in given):
            return given
    return None


def unreadable_line_reply(exc: Exception) -> types.JSONRPCError | None:
    """The answer to a stdin line that is not a valid JSON-RPC message, or ``None`` for a
    notification (it gets no answer)."""
    raw = _raw_line(exc)
    if raw is not None and too_deep(raw):
        return too_deep_error(shallow_id(raw))
    parsed = _message_of(exc)
    if not isinstance(parsed, dict):
        return _error(None, types.PARSE_ERROR, "parse error: the line is not a JSON object")
    rid = parsed.get("id")
    if "method" in parsed and "id" not in parsed:
        log.warning("dropped a notification that is not valid JSON-RPC: %s", exc)
        return None
    if isinstance(rid, bool) or not isinstance(rid, str | int):
        return _error(None, types.INVALID_REQUEST, "invalid request: no usable id")
    if _json_invalid(exc):
        return _error(
            rid,
            types.INVALID_PARAMS,
            "invalid params: the request holds text or a number that JSON cannot carry "
            "(a lone surrogate such as \\ud800, or an integer of thousands of digits)",
        )
    return _error(rid, types.INVALID_REQUEST, "invalid request: not a valid JSON-RPC message")


def _raw_line(exc: Exception) -> str | None:
    """The line the SDK could not parse as JSON, when it kept it."""
    if isinstance(exc, ValidationError):
        for err in exc.errors():
            given = err.get("input")
            if err.get("type") == "json_invalid" and isinstance(given, str):
                return given
    return None


def too_deep_error(rid: str | int | None) -> types.JSONRPCError:
    return _error(
        rid,
        types.PARSE_ERROR,
        f"parse error: the message nests objects or arrays more than {MAX_JSON_DEPTH} deep",
    )


def too_deep_message(item: SessionMessage) -> types.JSONRPCError | None:
    """The answer to a message the SDK read whose params nest too deep (the envelope is one
    level), or ``None`` when it is fine (or a notification, which gets no answer)."""
    message = item.message
    params = getattr(message, "params", None)
    if params is None or not nests_deeper(params, MAX_JSON_DEPTH - 1):
        return None
    rid = getattr(message, "id", None)
    if isinstance(message, types.JSONRPCNotification):
        log.warning("dropped a notification nested more than %d deep", MAX_JSON_DEPTH)
        return None
    return too_deep_error(rid if isinstance(rid, str | int) else None)


def _json_invalid(exc: Exception) -> bool:
    return isinstance(exc, ValidationError) and any(
        e.get("type") == "json_invalid" for e in exc.errors()
    )


def _error(rid: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message)
    )


async def run_stdio(server: MCPServer) -> None:
    """``server.run_stdio_async()``, except that unreadable lines are answered."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        inner_writer, inner_reader = create_context_streams[SessionMessage | Exception](0)

        async def pump() -> None:
            async with inner_writer:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        deep = too_deep_message(item)
                        if deep is None:
                            await inner_writer.send(item)
                        else:
                            await write_stream.send(SessionMessage(deep))
                        continue
                    reply = unreadable_line_reply(item)
                    if reply is not None:
                        await write_stream.send(SessionMessage(reply))

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            await lowlevel.run(inner_reader, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
