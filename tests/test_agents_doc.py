"""docs/agents.md keeps its promises: every JSON snippet parses, every ``hoard`` command in
it is one the CLI accepts, and every tool and prompt it names is one the server offers. The
README's "Connecting a client" section, with a snippet per client, is held to the same."""

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

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "agents.md"
README = ROOT / "README.md"
BLOCK = re.compile(r"```(json|sh)\n(.*?)```", re.S)


def readme_clients() -> str:
    """The README's "Connecting a client" section, up to the next top-level heading."""
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Connecting a client\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def blocks(kind: str, text: str | None = None) -> list[str]:
    page = DOC.read_text(encoding="utf-8") if text is None else text
    return [body for k, body in BLOCK.findall(page) if k == kind]


def hoard_argv(command: str) -> list[str]:
    argv = shlex.split(command, comments=True)
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


def test_the_readme_has_a_snippet_per_client_that_parses_and_the_cli_accepts() -> None:
    section = readme_clients()
    for client in ("Claude Code", "Claude Desktop", "ChatGPT"):
        assert f"\n### {client}" in section, f"no README section for {client}"
    parser = build_parser()
    seen: list[list[str]] = []
    for text in blocks("json", section):
        seen += commands_in(json.loads(text))
    for text in blocks("sh", section):  # the install lines (pipx, make) are not hoard's
        lines = [line for line in text.strip().splitlines() if line.startswith("hoard ")]
        seen += [hoard_argv(line) for line in lines]
    for argv in seen:
        parser.parse_args(argv)
    assert ["hook", "session-start"] in [argv[:2] for argv in seen]
    assert any(argv[0] == "serve" and "--public-url" in argv for argv in seen), "ChatGPT"
    assert sum(argv[:2] == ["serve", "--vault"] for argv in seen) >= 2, "the two Claudes"
