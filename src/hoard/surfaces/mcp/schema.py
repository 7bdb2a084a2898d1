"""Output schemas that are cheap to validate.

Clients validate every structured result against the tool's ``outputSchema`` (the official
Python client does, with ``jsonschema``). Pydantic's schemas put nested models behind
``$ref: #/$defs/...`` and optional fields behind ``anyOf`` of single types; a validator pays
a reference lookup per list item, a sub-validation per ``anyOf`` branch and, for
``additionalProperties: true``, a visit of every extra property. A 500-entry ``vault_list``
result spent most of the client's time there. :func:`simplify_schema` rewrites a schema into
an equivalent one without those: local references are inlined (when the definitions are not
recursive), ``anyOf`` branches that only name a type become one ``type`` list, and
``additionalProperties: true`` (the default) is left out. What the schema accepts does not
change.

:func:`records_by_keys` then makes one deliberate trade: an array of records (list entries,
search hits, links) declares each item by its keys (``type: object`` and ``required``), and
the item's full schema moves to ``$defs`` under its title, where a reader or a code
generator finds every field's type but a validator never goes. A validating client then
checks that every record has every key, without descending into each field: the official
Python client pays about 8 µs per descent, so a 500-entry listing cost 38 ms of validation
with field schemas and about 10 ms by keys. Our results are built from typed models, so a field
of the wrong type is a server bug the test suite checks for, not something a client must
catch on every call.
"""

from __future__ import annotations

from typing import Any

_DEFS_PREFIX = "#/$defs/"
_ANNOTATIONS = frozenset({"title", "description"})


def simplify_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An equivalent schema with local ``$ref``s inlined and type-only ``anyOf`` merged.
    A schema whose definitions refer to themselves is returned with only ``anyOf`` merged."""
    defs: dict[str, Any] = schema.get("$defs", {})
    body = {k: v for k, v in schema.items() if k != "$defs"}
    try:
        inlined = _inline(body, defs, ())
    except _Recursive:
        inlined = schema
    merged: dict[str, Any] = _merge_any_of(inlined)
    return merged


class _Recursive(Exception):
    pass


def _inline(node: Any, defs: dict[str, Any], trail: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(x, defs, trail) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
        name = ref[len(_DEFS_PREFIX) :]
        if name in trail:
            raise _Recursive(name)
        if name not in defs:
            raise _Recursive(name)  # a dangling reference: leave the schema as it was
        target = _inline(defs[name], defs, (*trail, name))
        extra = {k: _inline(v, defs, trail) for k, v in node.items() if k != "$ref"}
        return {**target, **extra} if extra else target
    return {k: _inline(v, defs, trail) for k, v in node.items()}


_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
"""Keywords whose value maps names to schemas (the names are not keywords)."""
_SCHEMA_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"}
)


def _merge_any_of(node: Any) -> Any:
    """Walk schema nodes only (never ``default``, ``enum`` or ``const`` values): drop
    ``additionalProperties: true`` (the default, but a validator still visits every extra
    property for it) and merge type-only ``anyOf`` branches into one ``type`` list."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "additionalProperties" and value is True:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _merge_any_of(v) for name, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_merge_any_of(v) for v in value]
        elif key in _SCHEMA_ONE:
            out[key] = _merge_any_of(value)
        else:
            out[key] = value
    branches = out.get("anyOf")
    if isinstance(branches, list) and branches and "type" not in out:
        types: list[str] = []
        for branch in branches:
            if not isinstance(branch, dict) or set(branch) - _ANNOTATIONS != {"type"}:
                return out
            kind = branch["type"]
            if not isinstance(kind, str):
                return out
            if kind not in types:
                types.append(kind)
        del out["anyOf"]
        out["type"] = types[0] if len(types) == 1 else types
    return out


def records_by_keys(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every array of records (items that are objects with ``properties``)
    declared by its keys; each full item schema goes to ``$defs`` under its title. Record
    arrays nested inside a moved item stay as they are there: nothing validates them."""
    defs: dict[str, Any] = dict(schema.get("$defs", {}))
    out: dict[str, Any] = _by_keys({k: v for k, v in schema.items() if k != "$defs"}, defs)
    if defs:
        out["$defs"] = defs
    return out


def _by_keys(node: Any, defs: dict[str, Any]) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "items" and _is_record(value):
            out[key] = _keys_only(value, defs)
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _by_keys(v, defs) for name, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_by_keys(v, defs) for v in value]
        elif key in _SCHEMA_ONE:
            out[key] = _by_keys(value, defs)
        else:
            out[key] = value
    return out


def _is_record(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("type") == "object"
        and isinstance(node.get("properties"), dict)
        and bool(node["properties"])
    )


def _keys_only(item: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    name = str(item.get("title") or "Record")
    while name in defs and defs[name] != item:
        name += "_"
    defs[name] = item
    fields = ", ".join(f"{field} ({_type_words(sub)})" for field, sub in item["properties"].items())
    keys_only: dict[str, Any] = {"type": "object", "title": name}
    if item.get("required"):
        keys_only["required"] = list(item["required"])
    keys_only["description"] = f"Fields: {fields}. Full schema: #/$defs/{name}."
    return keys_only


def _type_words(sub: Any) -> str:
    kind = sub.get("type", "any") if isinstance(sub, dict) else "any"
    return " or ".join(kind) if isinstance(kind, list) else str(kind)
