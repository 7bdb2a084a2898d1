"""The OpenAPI 3.1 document of the JSON API, generated from the route table and from the
same result dataclasses the MCP tools declare as output schemas (through pydantic, as the
MCP SDK does): one source of truth, no hand-written copy."""

from __future__ import annotations

import dataclasses
from typing import Any

from hoard import __version__
from hoard.core.errors import ERROR_CODES
from hoard.surfaces.api.framework import Op, Param, adapter

REF = "#/components/schemas/{model}"
_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}
_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted (a proposal: nothing written yet)",
    304: "Not Modified (the ETag matched)",
    400: "Bad input",
    401: "No valid credentials",
    403: "Forbidden (scope, private or protected note)",
    404: "Not found",
    405: "Method not allowed",
    409: "Exists or conflict",
    410: "The proposal expired",
    412: "Precondition failed (stale If-Match or If-None-Match: * on an existing note)",
    413: "Too large",
    422: "Contract violation or sandbox refusal",
    428: "Precondition required (If-Match or If-None-Match: *)",
    503: "Busy, or strict mode with a bad tokens file",
}
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Error",
    "description": "The SPEC error object, the same the MCP tools return. Codes: "
    + ", ".join(ERROR_CODES)
    + " (and unauthorized, unavailable, misdirected from the HTTP guard).",
    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
    "required": ["error", "message"],
}


def schema_of(kind: Any, components: dict[str, Any], mode: str = "serialization") -> Any:
    """The JSON schema of ``kind``; dataclasses and their nested types go to components."""
    schema = adapter(kind).json_schema(ref_template=REF, mode=mode)  # type: ignore[arg-type]
    components.update(schema.pop("$defs", {}))
    if dataclasses.is_dataclass(kind) and "title" in schema:
        components[schema["title"]] = schema
        return {"$ref": REF.format(model=schema["title"])}
    return schema


def _parameter(p: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _TYPES[p.kind]}
    if p.minimum is not None:
        schema["minimum"] = p.minimum
    if p.maximum is not None:
        schema["maximum"] = p.maximum
    if p.choices:
        schema["enum"] = list(p.choices)
    if p.default is not None:
        schema["default"] = p.default
    if p.where == "path":
        schema["minLength"] = 1
    if p.many:
        schema = {"type": "array", "items": schema}
    out: dict[str, Any] = {
        "name": p.name,
        "in": p.where,
        "required": p.required or p.where == "path",
        "schema": schema,
    }
    if p.description:
        out["description"] = p.description
    return out


def _responses(op: Op, components: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    etag = {"ETag": {"description": "The note's revision, quoted.", "schema": {"type": "string"}}}
    for status, kind in op.ok.items():
        resp: dict[str, Any] = {"description": _STATUS_TEXT.get(status, "OK")}
        if kind is not None:
            resp["content"] = {"application/json": {"schema": schema_of(kind, components)}}
        if op.etag and status in (200, 201, 304):
            resp["headers"] = etag
        out[str(status)] = resp
    error = {"application/json": {"schema": {"$ref": REF.format(model="Error")}}}
    for status in sorted({*op.errors, 401, 503}):
        out[str(status)] = {"description": _STATUS_TEXT.get(status, "Refused"), "content": error}
    return out


def _operation(op: Op, components: dict[str, Any]) -> dict[str, Any]:
    item: dict[str, Any] = {
        "operationId": op.op_id,
        "summary": op.summary,
        "tags": [op.tag],
        "responses": _responses(op, components),
    }
    params = [_parameter(p) for p in op.params]
    if op.precondition:
        params.append(
            {
                "name": "If-Match",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": 'The revision you read, quoted: "<revision>".',
            }
        )
    if op.etag and op.method == "PUT":
        params.append(
            {
                "name": "If-None-Match",
                "in": "header",
                "required": False,
                "schema": {"type": "string", "enum": ["*"]},
                "description": "* to create a new note only.",
            }
        )
    if params:
        item["parameters"] = params
    if op.body is not None:
        content: dict[str, Any] = {
            "application/json": {"schema": schema_of(op.body.model, components, "validation")}
        }
        if op.body.markdown:
            content["text/markdown"] = {"schema": {"type": "string"}}
        item["requestBody"] = {"required": True, "content": content}
    return item


def openapi_document(ops: list[Op], prefix: str) -> dict[str, Any]:
    components: dict[str, Any] = {"Error": ERROR_SCHEMA}
    paths: dict[str, Any] = {}
    for op in ops:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, components)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "hoard JSON API",
            "version": __version__,
            "description": "Every operation of hoard's MCP tools over plain HTTP: the same "
            "arguments, results, gates, errors and ledger. A note's revision is its ETag.",
        },
        "servers": [{"url": prefix}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(components.items())),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
