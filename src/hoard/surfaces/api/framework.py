"""The small machinery every route of the JSON API shares.

A route is an :class:`Op`: method, path template, typed parameters, an optional typed request
body and the result types it answers with. The same table builds the Starlette routes and the
OpenAPI document (:mod:`hoard.surfaces.api.openapi`), so what is served and what is described
cannot drift apart. A handler gets a :class:`Call` (the caller the auth middleware resolved,
the parsed parameters and body, the headers) and returns a result object (a dataclass of
:mod:`hoard.core.models`) or a :class:`Reply` when it sets the status or headers itself.
Refusals are :class:`~hoard.core.errors.HoardError`; one mapping
(:mod:`hoard.surfaces.api.errors`) turns them into HTTP statuses and the SPEC error object.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from hoard.core.errors import HoardError, InvalidArgument, IoError
from hoard.core.models import to_json
from hoard.core.policy import Caller
from hoard.surfaces.api.errors import NONE, error_response, unauthorized
from hoard.surfaces.caller import caller_in

log = logging.getLogger("hoard.api")

NO_STORE = {"Cache-Control": "no-store"}
_COMPACT = (",", ":")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True, slots=True)
class Param:
    """A query, path or header parameter of a route, with its type and bounds."""

    name: str
    kind: type[str] | type[int] | type[bool] | type[float]
    description: str = ""
    default: Any = None
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None
    where: Literal["query", "path", "header"] = "query"
    slashes: bool = False
    """A path parameter that may hold ``/`` (a note path)."""
    choices: tuple[str, ...] = ()
    many: bool = False
    """A query parameter that may repeat (``?tag=a&tag=b``): a list, ``default`` when absent."""


@dataclass(frozen=True, slots=True)
class Body:
    """A request body: JSON validated against ``model`` (a dataclass); with ``markdown``, a
    ``text/markdown`` (or ``text/plain``) body is the note's exact text instead."""

    model: type
    markdown: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    caller: Caller
    params: dict[str, Any]
    body: Any
    headers: Headers


@dataclass(frozen=True, slots=True)
class Reply:
    """A result with its own status and headers; ``body`` None sends no body (304)."""

    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


Handler = Callable[[Call], Any]


@dataclass(frozen=True, slots=True)
class Op:
    method: str
    path: str
    """The path template below ``/api/v1``, OpenAPI style: ``/notes/{path}/links``."""
    op_id: str
    summary: str
    tag: str
    handler: Handler
    ok: Mapping[int, Any]
    """Success statuses and the type each answers with (``None``: no body)."""
    params: tuple[Param, ...] = ()
    body: Body | None = None
    errors: tuple[int, ...] = (400, 403, 404)
    inline: Callable[[Call], bool] | None = None
    """Run on the event loop when this says yes: only small, bounded work that never waits."""
    precondition: bool = False
    """``If-Match`` / ``If-None-Match`` govern this write: a stale ``If-Match`` (``conflict``)
    or a failed ``If-None-Match: *`` (``exists``) is 412, not 409."""
    etag: bool = False
    """Successful answers carry the note's revision as a strong ``ETag``."""

    @property
    def route_path(self) -> str:
        """The Starlette path: parameters that may hold ``/`` use the ``path`` convertor."""
        out = self.path
        for p in self.params:
            if p.where == "path" and p.slashes:
                out = out.replace("{" + p.name + "}", "{" + p.name + ":path}")
        return out


@lru_cache(maxsize=64)
def adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def json_bytes(obj: Any) -> bytes:
    return json.dumps(to_json(obj), ensure_ascii=False, separators=_COMPACT).encode()


def _convert(p: Param, raw: str) -> Any:
    if p.kind is bool:
        low = raw.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise InvalidArgument(f"{p.name} must be true or false, got {raw[:40]!r}", param=p.name)
    if p.kind is int or p.kind is float:
        try:
            value: float = p.kind(raw.strip())
        except ValueError:
            raise InvalidArgument(
                f"{p.name} must be a number, got {raw[:40]!r}", param=p.name
            ) from None
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidArgument(f"{p.name} must be a finite number", param=p.name)
        if (p.minimum is not None and value < p.minimum) or (
            p.maximum is not None and value > p.maximum
        ):
            raise InvalidArgument(
                f"{p.name} must be between {p.minimum} and {p.maximum}", param=p.name
            )
        return value
    if p.choices and raw not in p.choices:
        raise InvalidArgument(f"{p.name} must be one of {', '.join(p.choices)}", param=p.name)
    return raw


def parse_params(params: tuple[Param, ...], request: Request) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params:
        if p.many:
            values = request.query_params.getlist(p.name)
            out[p.name] = [_convert(p, v) for v in values] if values else p.default
            continue
        if p.where == "path":
            raw: str | None = request.path_params.get(p.name)
        elif p.where == "header":
            raw = request.headers.get(p.name)
        else:
            raw = request.query_params.get(p.name)
        if raw is None:
            if p.required:
                raise InvalidArgument(f"{p.name} is required", param=p.name)
            out[p.name] = p.default
            continue
        out[p.name] = _convert(p, raw)
    return out


async def parse_body(spec: Body, request: Request) -> Any:
    raw = await request.body()
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if spec.markdown and kind in ("text/markdown", "text/plain", "text/x-markdown"):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgument("the note body must be UTF-8 text") from exc
        return adapter(spec.model).validate_python({"content": text})
    if not raw.strip():
        raise InvalidArgument("this call needs a JSON body")
    try:
        return adapter(spec.model).validate_json(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'body'}: {err['msg']}"
            for err in exc.errors()[:10]
        )
        raise InvalidArgument(f"bad request body: {problems}") from None


def respond(result: Any, op: Op) -> Response:
    reply = result if isinstance(result, Reply) else Reply(result, next(iter(op.ok)))
    headers = {**NO_STORE, **reply.headers}
    if reply.body is None:
        return Response(status_code=reply.status, headers=headers)
    return Response(
        json_bytes(reply.body),
        status_code=reply.status,
        headers=headers,
        media_type="application/json",
    )


def endpoint(op: Op) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of ``op``: caller, parameters, body, handler, one error mapping."""

    async def run(request: Request) -> Response:
        caller = caller_in(request.scope)
        if caller is None:
            return unauthorized()
        preconditions = (
            frozenset(h for h in ("if-match", "if-none-match") if h in request.headers)
            if op.precondition
            else NONE
        )
        try:
            params = parse_params(op.params, request)
            body = await parse_body(op.body, request) if op.body is not None else None
            call = Call(caller, params, body, request.headers)
            if op.inline is not None and op.inline(call):
                result = op.handler(call)
            else:
                result = await run_in_threadpool(op.handler, call)
        except HoardError as exc:
            return error_response(exc, preconditions)
        except Exception:
            log.exception("%s %s failed unexpectedly", op.method, op.path)
            return error_response(IoError("internal error; the server log has the details"))
        return respond(result, op)

    run.__name__ = op.op_id
    return run
