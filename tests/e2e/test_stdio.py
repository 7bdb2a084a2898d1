"""``hoard serve`` over stdio, as a subprocess running the installed console script."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from hoard.adapters.tokens import TokenStore
from hoard.surfaces.cli import main as cli
from tests.helpers import hoard_env

pytestmark = pytest.mark.anyio

READING_TOOLS = {
    "vault_search",
    "vault_read",
    "vault_list",
    "vault_links",
    "vault_policy",
    "vault_request_access",
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The child's environment, with XDG folders in tmp_path so nothing lands in $HOME."""
    return hoard_env(tmp_path)


async def test_the_stdio_server_lists_its_tools_and_answers_a_search(
    hoard_bin: Path, example_vault: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    params = StdioServerParameters(
        command=str(hoard_bin),
        args=["serve", "--vault", str(example_vault), "--state-dir", str(tmp_path / "state")],
        env=env,
    )
    async with Client(params) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        r = await c.call_tool("vault_search", {"query": "hue bridge firmware"})
        policy = await c.call_tool("vault_policy", {})
    assert names >= READING_TOOLS
    assert not r.is_error
    assert r.structured_content["results"][0]["path"] == "tech/hue-bridge.md"
    # Without --as the caller is the local default.
    assert policy.structured_content["caller"] == "local"
    assert policy.structured_content["write_mode"] == "propose"


async def test_serve_as_a_named_caller_reports_that_caller_in_its_policy(
    hoard_bin: Path, example_vault: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    tokens = tmp_path / "tokens.json"
    TokenStore(tokens).add("stdio-agent", "read,write", "direct")
    params = StdioServerParameters(
        command=str(hoard_bin),
        args=[
            "serve",
            "--vault",
            str(example_vault),
            "--state-dir",
            str(tmp_path / "state"),
            "--tokens",
            str(tokens),
            "--as",
            "stdio-agent",
        ],
        env=env,
    )
    async with Client(params) as c:
        policy = await c.call_tool("vault_policy", {})
    assert not policy.is_error
    data = policy.structured_content
    assert data["caller"] == "stdio-agent"
    assert data["scopes"] == ["read", "write"]
    assert data["write_mode"] == "direct"
    assert any("credential holder, not a person" in n for n in data["notes"])


def test_serve_as_an_unknown_caller_refuses_to_start(
    example_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = tmp_path / "tokens.json"
    TokenStore(tokens).add("someone", "read", "propose")
    code = cli.run(
        [
            "serve",
            "--vault",
            str(example_vault),
            "--state-dir",
            str(tmp_path / "state"),
            "--tokens",
            str(tokens),
            "--as",
            "nobody",
        ]
    )
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nobody" in captured.err


def test_the_stdio_server_writes_nothing_but_protocol_on_stdout(
    hoard_bin: Path, example_vault: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    proc = subprocess.Popen(
        [
            str(hoard_bin),
            "serve",
            "--vault",
            str(example_vault),
            "--state-dir",
            str(tmp_path / "state"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    stderr_text: list[str] = []
    err_reader = threading.Thread(
        target=lambda: stderr_text.append(proc.stderr.read() if proc.stderr else ""), daemon=True
    )
    err_reader.start()
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hoard-tests", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "vault_search", "arguments": {"query": "hue"}},
        },
    ]
    seen: list[str] = []
    try:
        for m in messages:
            proc.stdin.write(json.dumps(m) + "\n")
        proc.stdin.flush()
        answered: set[Any] = set()
        while answered != {1, 2, 3}:
            line = lines.get(timeout=30)
            assert line is not None, "the server closed stdout early"
            seen.append(line)
            msg = json.loads(line)
            if "id" in msg:
                answered.add(msg["id"])
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    reader.join(timeout=10)
    err_reader.join(timeout=10)
    proc.stdout.close()
    proc.stderr.close()
    while (rest := lines.get(timeout=10)) is not None:
        seen.append(rest)
    assert proc.returncode == 0
    for line in seen:
        assert json.loads(line)["jsonrpc"] == "2.0", line
    # The start is one line on stderr (not a terminal here: a client's log).
    assert "over stdio" in "".join(stderr_text)
