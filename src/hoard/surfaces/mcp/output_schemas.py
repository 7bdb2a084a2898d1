"""Every tool's published output schema, read from ``output_schemas.json`` beside this module
instead of being derived from the result types at each start.

Deriving a tool's output schema means building a pydantic model of its result type, its
validator and its JSON schema: 60-70 ms of CPU for the 31 tools, about 8% of what a stdio
server's start uses (bench/cli_start.py). The schemas only change when a result type does,
so ``make docs`` writes them to ``output_schemas.json`` (``python -m
hoard.surfaces.reference``) and ``tests/test_docs.py`` fails when the file and the types
disagree. A tool missing from the file
(one added since) has its schema derived at start, as before.

The server no longer validates each structured result against a pydantic model of its type
(which the SDK does when it derives the schema itself): every result is built from the typed
records of :mod:`hoard.core.models`, the client validates it against the published schema
anyway, and the test suite checks every field of the results against the full schema
(``tests/surfaces/mcp/test_schema.py``). That validation cost each call as much again as the
result's JSON encoding.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.utilities.func_metadata import func_metadata

from hoard.surfaces.mcp.schema import records_by_keys, simplify_schema

PUBLISHED_FILE = Path(__file__).with_name("output_schemas.json")

Schema = dict[str, Any]


class OutputSchemas:
    """The output schemas a server publishes: from the file, else derived from the types."""

    def __init__(self, published: Mapping[str, Schema]) -> None:
        self.published = published

    @classmethod
    def from_file(cls, path: Path = PUBLISHED_FILE) -> OutputSchemas:
        """The schemas ``make docs`` wrote (none when the file is missing)."""
        try:
            data: dict[str, Schema] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = {}
        return cls(data)

    def of(self, name: str, derive: Callable[[], Schema | None]) -> Schema | None:
        """Tool ``name``'s schema: the published one, else ``derive()``."""
        found = self.published.get(name)
        return found if found is not None else derive()


@functools.cache
def published() -> OutputSchemas:
    """The schemas of the file, read once a process."""
    return OutputSchemas.from_file()


DERIVED = OutputSchemas({})
"""Every schema derived from the result types (what ``make docs`` writes to the file)."""


def derived_schema(fn: Callable[..., Any]) -> Schema | None:
    """What the SDK derives from ``fn``'s return type, rewritten to validate cheaply (see
    :mod:`hoard.surfaces.mcp.schema`)."""
    schema = func_metadata(fn, structured_output=True).output_schema
    return None if schema is None else records_by_keys(simplify_schema(schema))


def schemas_text(schemas: Mapping[str, Schema | None]) -> str:
    """The file's text: one schema per tool, keys sorted, one line each (a change to a type
    shows as one changed line in a diff)."""
    lines = [
        f"  {json.dumps(name)}: {json.dumps(schema, sort_keys=True, ensure_ascii=False)}"
        for name, schema in sorted(schemas.items())
        if schema is not None
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"
