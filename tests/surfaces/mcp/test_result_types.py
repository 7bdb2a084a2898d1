"""The result types are frozen; every one the SDK does not read as a tool's return type is
slotted too (the SDK takes a slotted class's member descriptors for defaults)."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from dataclasses import dataclass, field

import pytest
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import InvalidSignature

import hoard.core.models as models
from hoard.app.hoard import Hoard
from hoard.surfaces.mcp.server import HoardMCP

RESULT_TYPES = [
    obj
    for obj in vars(models).values()
    if inspect.isclass(obj)
    and dataclasses.is_dataclass(obj)
    and obj.__module__.startswith(models.__name__ + ".")
]


def _has_default(cls: type) -> bool:
    return any(
        f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        for f in dataclasses.fields(cls)
    )


def _returned_types(hoard: Hoard) -> set[type]:
    """The classes the MCP tools return (each member of a union return type)."""
    server = HoardMCP(hoard, hoard.owner).server
    out: set[type] = set()
    for tool in server._tool_manager._tools.values():
        ret = typing.get_type_hints(tool.fn).get("return")
        members = typing.get_args(ret) if isinstance(ret, types.UnionType) else (ret,)
        out.update(m for m in members if inspect.isclass(m))
    return out


def test_there_are_result_types_to_check() -> None:
    assert len(RESULT_TYPES) > 20


@pytest.mark.parametrize("cls", RESULT_TYPES, ids=lambda c: c.__name__)
def test_every_result_type_is_frozen(cls: type) -> None:
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_every_record_no_tool_returns_and_without_defaults_is_slotted(hoard: Hoard) -> None:
    returned = _returned_types(hoard)
    assert models.SearchResult in returned
    should = [c for c in RESULT_TYPES if c not in returned and not _has_default(c)]
    assert should
    assert [c.__name__ for c in should if "__slots__" not in vars(c)] == []


def test_changing_a_handed_out_result_raises() -> None:
    hit = models.SearchHit("a.md", "A", 1.0, "", "", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.score = 2.0  # type: ignore[misc]
    assert dataclasses.replace(hit, score=2.0).score == 2.0


def test_the_sdk_refuses_a_slotted_return_type_which_is_why_tool_results_are_not() -> None:
    @dataclass(frozen=True, slots=True)
    class Slotted:
        path: str
        warnings: list[str] = field(default_factory=list)

    def tool() -> Slotted:
        return Slotted("a.md")

    with pytest.raises(InvalidSignature):
        MCPServer("probe").add_tool(tool, structured_output=True)
