"""The docs keep up with the code, in datasette's manner: every MCP tool and each of its
arguments (from the real server's ``tools/list``), every CLI command (from the parser) and
every ``hoard.toml`` key (from the config schema) is documented, the generated parts of the
pages are current (``make docs``), and every link in the docs stays inside the repository
and resolves.

A new tool, argument, command or key fails here until it is documented: run ``make docs``
for the generated pages; a new CLI command also needs its line in README.md's CLI section.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import anyio
import pytest
from mcp_types import Tool

from hoard.core.config_schema import SCHEMA
from hoard.surfaces.cli.commands import build_parser
from hoard.surfaces.mcp.output_schemas import PUBLISHED_FILE
from hoard.surfaces.reference import (
    derived_schemas_text,
    generated_part,
    listed_tools,
    module_docs,
    module_index,
    tools_reference,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "bench" / "README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> list[Tool]:
    tmp = tmp_path_factory.mktemp("docs")
    (tmp / "vault").mkdir()

    return anyio.run(listed_tools, tmp / "vault", tmp / "state")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no commands")


def test_every_tool_and_each_of_its_arguments_is_in_the_tools_reference(
    tools: list[Tool],
) -> None:
    page = (DOCS / "tools.md").read_text(encoding="utf-8")
    missing = []
    for tool in tools:
        section = page.partition(f"### `{tool.name}`\n")[2].partition("\n### ")[0]
        if not section:
            missing.append(tool.name)
            continue
        for arg in tool.input_schema.get("properties", {}):
            if f"| `{arg}` |" not in section:
                missing.append(f"{tool.name}({arg})")
    assert missing == [], "run `make docs`"


def test_the_tools_reference_is_the_generated_one(tools: list[Tool]) -> None:
    page = (DOCS / "tools.md").read_text(encoding="utf-8")
    assert generated_part(page, "tools") == tools_reference(tools), "run `make docs`"


def test_every_tool_is_named_in_the_readme(tools: list[Tool]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [t.name for t in tools if f"`{t.name}`" not in readme] == []


def test_every_cli_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cli = readme.partition("## CLI\n")[2].partition("\n## ")[0]
    missing = [name for name in subcommands() if f"hoard {name}" not in cli]
    assert missing == []


def test_every_action_of_a_command_with_actions_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = []
    for name, parser in subcommands().items():
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing += [
                    f"{name} {a}" for a in action.choices if f"hoard {name} {a}" not in readme
                ]
    assert missing == []


def test_every_hoard_toml_key_is_in_the_config_reference() -> None:
    page = (DOCS / "config.md").read_text(encoding="utf-8")
    keys = [f"{s}.{k}" if s else k for s, keys in SCHEMA.items() for k in keys]
    assert [k for k in keys if f"| `{k}` |" not in page] == []


def test_the_published_output_schemas_are_the_ones_the_result_types_give() -> None:
    published = PUBLISHED_FILE.read_text(encoding="utf-8")
    assert published == derived_schemas_text(), "run `make docs`"


def test_the_module_list_names_every_module_with_its_docstring() -> None:
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert generated_part(page, "modules") == module_index(module_docs()), "run `make docs`"


def links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code holds no links
    text = re.sub(r"`[^`\n]*`", "", text)
    return [a or b for a, b in LINK.findall(text)]


def broken_links(page: Path, root: Path) -> list[str]:
    """The links of ``page`` that leave ``root``, name no file, or no heading of the page."""
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # http(s):, mailto:: outside by intent
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if (
            not where.is_relative_to(root)
            or not where.exists()
            or (anchor and where.suffix == ".md" and anchor not in anchors(where))
        ):
            broken.append(target)
    return broken


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_stays_in_the_repository_and_resolves(page: Path) -> None:
    assert broken_links(page, ROOT) == []


def test_the_link_check_names_links_outside_missing_or_to_no_heading(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "a.md").write_text("# A page\n\n## Some part\n", encoding="utf-8")
    page = repo / "README.md"
    page.write_text(
        "[spec](../shared/SPEC.md) [gone](docs/b.md) [ok](docs/a.md#some-part) "
        "[no heading](docs/a.md#other) [web](https://example.org) ![shot](docs/a.md)\n"
        "```\n[in code](nowhere.md)\n```\n`[inline](nowhere.md)`\n",
        encoding="utf-8",
    )
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "SPEC.md").write_text("# SPEC\n", encoding="utf-8")

    assert broken_links(page, repo) == ["../shared/SPEC.md", "docs/b.md", "docs/a.md#other"]


def test_no_code_comment_or_docstring_names_an_issue_number_or_a_spec_section() -> None:
    """A reader of the code has neither the issue tracker nor the SPEC's numbering: the
    comment says what is meant."""
    pattern = re.compile(r"\b[Ii]ssue \d+|\bSPEC (section |§ ?)?\d")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
