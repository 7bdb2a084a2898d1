"""The generated parts of the docs (``make docs``; ``tests/test_docs.py`` keeps them current):
every MCP tool with its arguments in ``docs/tools.md``, from the real server's ``tools/list``;
every module with the first line of its docstring in ``docs/architecture.md``; and every tool's
output schema, derived from its result types, in ``hoard/surfaces/mcp/output_schemas.json``
(what a server publishes without deriving them at each start).

    python -m hoard.surfaces.reference [DOCS_DIR]

Each page keeps its hand-written text; only the part between ``<!-- generated:NAME -->`` and
``<!-- end generated:NAME -->`` is rewritten.
"""

from __future__ import annotations

import ast
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import Tool

import hoard
from hoard.app.hoard import Hoard
from hoard.core.policy import SCOPES, Caller
from hoard.surfaces.mcp.output_schemas import DERIVED, PUBLISHED_FILE, OutputSchemas, schemas_text
from hoard.surfaces.mcp.server import HoardMCP

PACKAGE = Path(hoard.__file__).resolve().parent
EVERY_SCOPE = Caller("owner", frozenset(SCOPES), "direct", owner=True)
"""A caller that is listed every tool."""


def _marks(name: str) -> tuple[str, str]:
    return f"<!-- generated:{name} -->", f"<!-- end generated:{name} -->"


def generated_part(text: str, name: str) -> str:
    """What the page holds between the marks of ``name`` (empty when they are missing)."""
    start, end = _marks(name)
    match = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.S)
    return match.group(1) if match else ""


def with_generated(text: str, name: str, body: str) -> str:
    """``text`` with the part between the marks of ``name`` replaced by ``body``."""
    start, end = _marks(name)
    if start not in text or end not in text:
        raise ValueError(f"the page has no {start} ... {end} marks")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}{end}{tail}"


# -- tools --------------------------------------------------------------------------------


async def listed_tools(
    vault: Path, state_dir: Path, schemas: OutputSchemas | None = None
) -> list[Tool]:
    """The server's ``tools/list`` for a caller holding every scope, through the SDK's
    in-memory client (``schemas``: where the output schemas come from; the published file's
    by default)."""
    with Hoard(vault, state_dir) as h:
        mcp = HoardMCP(h, EVERY_SCOPE, output_schemas=schemas)
        try:
            async with Client(mcp.server) as client:
                return list((await client.list_tools()).tools)
        finally:
            mcp.close()


def tools_now(schemas: OutputSchemas | None = None) -> list[Tool]:
    """:func:`listed_tools` on an empty vault in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="hoard-docs-") as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        return anyio.run(listed_tools, vault, Path(tmp) / "state", schemas)


def derived_schemas_text() -> str:
    """What ``output_schemas.json`` should hold: every tool's schema derived from its types."""
    return schemas_text({t.name: t.output_schema for t in tools_now(DERIVED)})


def _type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{v!r}`".replace("'", '"') for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_of(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    return str(kind or "object")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def tool_section(tool: Tool) -> str:
    """One tool: its heading, description and a table of its arguments."""
    lines = [f"### `{tool.name}`", "", _cell(tool.description or ""), ""]
    props: dict[str, Any] = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    if not props:
        return "\n".join([*lines, "No arguments.", ""])
    lines += ["| argument | type | default | meaning |", "|---|---|---|---|"]
    for name, schema in props.items():
        default = "required" if name in required else f"`{schema.get('default')!r}`"
        default = default.replace("'", '"').replace("None", "null")
        meaning = _cell(schema.get("description", ""))
        lines.append(f"| `{name}` | {_type_of(schema)} | {default} | {meaning} |")
    return "\n".join([*lines, ""])


def tools_reference(tools: Iterable[Tool]) -> str:
    return "\n".join(tool_section(t) for t in tools)


# -- modules ------------------------------------------------------------------------------


def module_docs() -> dict[str, str]:
    """Every hoard module with the first line of its docstring, in path order."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[name] = doc.strip().split("\n\n")[0].replace("\n", " ")
    return out


def module_index(docs: dict[str, str]) -> str:
    """A table per top-level package: each module and what its docstring says first."""
    groups: dict[str, list[str]] = {}
    for name, doc in docs.items():
        group = name.split(".")[1] if "." in name else "hoard"
        groups.setdefault(group, []).append(f"| `{name}` | {_cell(doc) or '-'} |")
    out = []
    for group, rows in groups.items():
        out += [f"### {group}", "", "| module | what it is |", "|---|---|", *rows, ""]
    return "\n".join(out)


def regenerate(docs_dir: Path) -> list[Path]:
    """Rewrite the output schemas' file and the generated parts of the pages under
    ``docs_dir``; the files changed."""
    pages = {
        docs_dir / "tools.md": ("tools", tools_reference(tools_now())),
        docs_dir / "architecture.md": ("modules", module_index(module_docs())),
    }
    changed = []
    schemas = derived_schemas_text()
    if not PUBLISHED_FILE.exists() or PUBLISHED_FILE.read_text(encoding="utf-8") != schemas:
        PUBLISHED_FILE.write_text(schemas, encoding="utf-8")
        changed.append(PUBLISHED_FILE)
    for page, (name, body) in pages.items():
        text = page.read_text(encoding="utf-8")
        new = with_generated(text, name, body)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


if __name__ == "__main__":
    for changed_page in regenerate(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        sys.stderr.write(f"rewrote {changed_page}\n")
