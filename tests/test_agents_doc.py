"""docs/agents.md keeps its promises: every JSON snippet parses, every ``hoard`` command in
it is one the CLI accepts, and every tool and prompt it names is one the server offers."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.surfaces.cli.commands import build_parser
from hoard.surfaces.mcp.server import HoardMCP

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"
BLOCK = re.compile(r"```(json|sh)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    return [body for k, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if k == kind]


def hoard_argv(command: str) -> list[str]:
    argv = shlex.split(command)
    assert Path(argv[0]).name == "hoard", command
    return argv[1:]


def commands_in(config: object) -> list[list[str]]:
    """Every hoard invocation in a client config: an MCP server entry or a hook."""
    out: list[list[str]] = []
    if isinstance(config, dict):
        if "command" in config and isinstance(config["command"], str):
            args = config.get("args", [])
            out.append(hoard_argv(config["command"]) + [str(a) for a in args])
        for value in config.values():
            out += commands_in(value)
    elif isinstance(config, list):
        for value in config:
            out += commands_in(value)
    return out


def test_every_json_snippet_parses_and_names_commands_the_cli_accepts() -> None:
    snippets = blocks("json")
    assert len(snippets) >= 3
    parser = build_parser()
    seen = []
    for text in snippets:
        for argv in commands_in(json.loads(text)):
            args = parser.parse_args(argv)
            seen.append(args.command)
    assert {"hook", "serve"} <= set(seen)


def test_every_shell_line_is_a_command_the_cli_accepts() -> None:
    parser = build_parser()
    for text in blocks("sh"):
        for line in text.strip().splitlines():
            parser.parse_args(hoard_argv(line))


@pytest.mark.anyio
async def test_every_tool_and_prompt_the_page_names_is_offered(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    (tmp_path / "v").mkdir()
    with Hoard(tmp_path / "v", tmp_path / "s") as h:
        async with Client(HoardMCP(h, OWNER).server) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            prompts = {p.name for p in (await c.list_prompts()).prompts}
    named_tools = set(re.findall(r"`(vault_\w+|search|fetch)\(", text))
    named_prompts = set(re.findall(r"prompt `([\w-]+)`", text))
    assert named_tools and named_tools <= tools
    assert named_prompts == {"orient", "file-a-note", "review-before-write"} <= prompts
