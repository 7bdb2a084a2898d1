"""Published output schemas are rewritten to validate cheaply without changing meaning."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp import Client
from pydantic import TypeAdapter

from hoard.app.hoard import Hoard
from hoard.core.models import LinksResult, ListResult, SearchResult
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.schema import records_by_keys, simplify_schema
from hoard.surfaces.mcp.server import HoardMCP

NESTED: dict[str, Any] = {
    "$defs": {
        "Entry": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "size": {"type": "integer"}},
            "required": ["path", "size"],
        }
    },
    "type": "object",
    "properties": {
        "entries": {"type": "array", "items": {"$ref": "#/$defs/Entry"}},
        "next": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    },
    "required": ["entries"],
}


def test_local_references_are_inlined_and_defs_dropped() -> None:
    out = simplify_schema(NESTED)
    assert "$defs" not in out
    assert out["properties"]["entries"]["items"] == NESTED["$defs"]["Entry"]


def test_type_only_any_of_becomes_a_type_list() -> None:
    out = simplify_schema(NESTED)
    assert out["properties"]["next"] == {"type": ["integer", "null"], "default": None}


def test_any_of_with_constraints_is_left_alone() -> None:
    schema = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}
    assert simplify_schema(schema) == schema


def test_additional_properties_true_is_left_out_even_inside_any_of() -> None:
    schema = {
        "type": "object",
        "properties": {
            "fm": {"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]},
            "w": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        },
        "additionalProperties": False,
    }
    out = simplify_schema(schema)
    assert out["properties"]["fm"] == {"type": ["object", "null"]}
    assert out["properties"]["w"]["items"] == {"type": "object"}
    assert out["additionalProperties"] is False  # only the no-op value goes
    for instance, valid in [({"fm": {"a": 1}}, True), ({"fm": None}, True), ({"x": 1}, False)]:
        assert jsonschema.Draft202012Validator(out).is_valid(instance) is valid


def test_names_and_literal_values_that_look_like_keywords_are_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "additionalProperties": {"type": "boolean"},
            "anyOf": {"type": "string", "default": {"anyOf": [{"type": "null"}]}},
        },
    }
    assert simplify_schema(schema) == schema


def test_recursive_definitions_keep_their_references() -> None:
    schema = {
        "$defs": {
            "Node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}}}
        },
        "$ref": "#/$defs/Node",
    }
    assert simplify_schema(schema) == schema


def test_a_reference_with_siblings_keeps_them() -> None:
    schema = {
        "$defs": {"A": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/A", "description": "kept"}},
    }
    assert simplify_schema(schema)["properties"]["a"] == {"type": "string", "description": "kept"}


INSTANCES: list[tuple[Any, bool]] = [
    ({"entries": [{"path": "a.md", "size": 1}], "next": None}, True),
    ({"entries": [{"path": "a.md", "size": 1}], "next": 3}, True),
    ({"entries": [{"path": "a.md"}]}, False),
    ({"entries": [{"path": 1, "size": 1}]}, False),
    ({"entries": [], "next": "x"}, False),
    ({"next": 1}, False),
]


@pytest.mark.parametrize(("instance", "valid"), INSTANCES)
def test_the_rewritten_schema_accepts_exactly_what_the_original_did(
    instance: Any, valid: bool
) -> None:
    for schema in (NESTED, simplify_schema(NESTED)):
        assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid


@pytest.mark.parametrize("model", [ListResult, SearchResult, LinksResult])
def test_hoard_result_schemas_lose_every_reference(model: type) -> None:
    schema = TypeAdapter(model).json_schema()
    out = simplify_schema(schema)
    jsonschema.Draft202012Validator.check_schema(out)
    assert "$ref" not in str(out)


@pytest.mark.anyio
async def test_the_server_publishes_the_simplified_schemas(example_hoard: Hoard) -> None:
    async with Client(HoardMCP(example_hoard, LOCAL_DEFAULT).server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        listed = await c.call_tool("vault_list", {"path": ""})  # the client validates it
    assert not listed.is_error
    listing = tools["vault_list"].output_schema
    assert listing is not None
    assert "$ref" not in str(listing)
    entry = listing["properties"]["entries"]["items"]
    assert entry["required"] == ["path", "kind", "size", "mtime"]
    assert "properties" not in entry
    assert listing["$defs"]["ListEntry"]["properties"]["size"]["type"] == "integer"


RECORDS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "entries": {"type": "array", "items": NESTED["$defs"]["Entry"] | {"title": "Entry"}},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_an_array_of_records_is_declared_by_its_keys_with_the_full_item_in_defs() -> None:
    out = records_by_keys(RECORDS)
    items = out["properties"]["entries"]["items"]
    assert items == {
        "type": "object",
        "title": "Entry",
        "required": ["path", "size"],
        "description": "Fields: path (string), size (integer). Full schema: #/$defs/Entry.",
    }
    assert out["$defs"]["Entry"] == RECORDS["properties"]["entries"]["items"]
    assert out["properties"]["tags"] == RECORDS["properties"]["tags"]  # not records: kept
    jsonschema.Draft202012Validator.check_schema(out)


def test_a_record_without_one_of_its_keys_still_fails_validation() -> None:
    validator = jsonschema.Draft202012Validator(records_by_keys(RECORDS))
    assert validator.is_valid({"entries": [{"path": "a.md", "size": 1}]})
    assert not validator.is_valid({"entries": [{"path": "a.md"}]})
    assert not validator.is_valid({"entries": ["a.md"]})
    assert not validator.is_valid({"path": 3, "entries": []})  # top-level fields keep types


def test_two_different_records_with_one_title_both_keep_their_full_schema() -> None:
    other = {"type": "object", "title": "Entry", "properties": {"x": {"type": "boolean"}}}
    schema = {
        "type": "object",
        "properties": {
            "a": RECORDS["properties"]["entries"],
            "b": {"type": "array", "items": other},
        },
    }
    out = records_by_keys(schema)
    assert out["$defs"]["Entry"]["properties"]["path"] == {"type": "string"}
    assert out["$defs"]["Entry_"] == other
    assert out["properties"]["b"]["items"]["description"].endswith("#/$defs/Entry_.")


def test_existing_definitions_are_kept_beside_the_moved_records() -> None:
    schema = {"$defs": {"Node": {"type": "object"}}, **RECORDS}
    out = records_by_keys(schema)
    assert set(out["$defs"]) == {"Node", "Entry"}


TOOL_CALLS: list[tuple[str, dict[str, Any], type]] = [
    ("vault_list", {"path": "", "recursive": True}, ListResult),
    ("vault_search", {"query": "backup"}, SearchResult),
    ("vault_links", {"path": "tech/_INDEX.md"}, LinksResult),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("tool", "args", "model"), TOOL_CALLS)
async def test_every_field_of_every_record_has_the_type_its_full_schema_says(
    example_hoard: Hoard, tool: str, args: dict[str, Any], model: type
) -> None:
    full = simplify_schema(TypeAdapter(model).json_schema())
    async with Client(HoardMCP(example_hoard, LOCAL_DEFAULT).server) as c:
        result = await c.call_tool(tool, args)
    assert not result.is_error
    data = result.structured_content
    assert data is not None
    records = data.get("entries") or data.get("results") or data.get("outgoing")
    assert records, "the call must return records for this check to mean anything"
    jsonschema.Draft202012Validator(full).validate(data)


@pytest.mark.anyio
async def test_confirm_and_history_publish_every_shape_they_can_return(
    example_hoard: Hoard,
) -> None:
    async with Client(HoardMCP(example_hoard, LOCAL_DEFAULT).server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        history = await c.call_tool("vault_history", {"path": "tech/hue-bridge.md"})
    assert not history.is_error  # the client validated it against the published schema
    confirm, hist = tools["vault_confirm"].output_schema, tools["vault_history"].output_schema
    assert confirm is not None and hist is not None
    assert confirm["type"] == "object" and hist["type"] == "object"
    confirm_titles = {branch.get("title") for branch in confirm["anyOf"]}
    assert confirm_titles == {"WriteResult", "FileNoteResult", "ArchiveResult", "RestoreResult"}
    assert {branch.get("title") for branch in hist["anyOf"]} == {"HistoryResult", "RevisionContent"}
    revision = next(b for b in hist["anyOf"] if b.get("title") == "RevisionContent")
    assert revision["properties"]["sha256"]["type"] == "string"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(hist).validate({"unexpected": 1})
