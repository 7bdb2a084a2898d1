"""A fresh install puts ``hoard`` on the PATH, and the snippet it prints starts it anywhere.

The project is built into a wheel and installed into a new virtual environment in a
temporary folder (what ``pipx install .`` or ``uv tool install .`` do). The server is then
started by its bare name with a ``PATH`` holding only that environment's ``bin``, and again
from the snippet ``hoard mcp-config`` prints, with no ``PATH`` at all (as a desktop client
with its own environment starts it).

To stay off the network, the new environment borrows hoard's dependencies from the test
environment through a ``.pth`` line; hoard itself is only the freshly installed wheel.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.anyio, pytest.mark.packaging]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = ROOT / "examples" / "vault"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new environment with hoard installed from a wheel; its ``bin`` folder."""
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("hoard-*.whl")
    env = tmp / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=300)
    python = env / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "_borrowed_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    return env / "bin"


def clean_env(tmp: Path, path: str | None) -> dict[str, str]:
    env = {
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
        "XDG_STATE_HOME": str(tmp / "xdg-state"),
        "LANG": "C.UTF-8",
    }
    if path is not None:
        env["PATH"] = path
    return env


def test_the_installed_hoard_is_the_wheel_not_the_working_tree(installed: Path) -> None:
    where = subprocess.run(
        [str(installed / "python"), "-c", "import hoard; print(hoard.__file__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert where.startswith(str(installed.parent)), where
    assert (installed / "hoard").is_file()


async def test_hoard_starts_by_bare_name_with_only_its_bin_on_the_path(
    installed: Path, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command="hoard",
        args=[
            "serve",
            "--stdio",
            "--vault",
            str(EXAMPLE_VAULT),
            "--state-dir",
            str(tmp_path / "s"),
        ],
        env=clean_env(tmp_path, str(installed)),
    )
    async with Client(params) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        found = await c.call_tool("vault_search", {"query": "hue bridge"})
    assert "vault_search" in names
    assert not found.is_error


def mcp_config(installed: Path, tmp_path: Path, client: str) -> dict[str, object]:
    printed = subprocess.run(
        [
            "hoard",
            "mcp-config",
            "--client",
            client,
            "--vault",
            str(EXAMPLE_VAULT),
            "--state-dir",
            str(tmp_path / "s"),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=clean_env(tmp_path, str(installed)),
    )
    config = json.loads(printed.stdout)
    assert isinstance(config, dict)
    return config


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "cursor", "vscode"])
def test_mcp_config_names_the_installed_hoard_by_its_absolute_path(
    installed: Path, tmp_path: Path, client: str
) -> None:
    config = mcp_config(installed, tmp_path, client)
    servers = config["servers" if client == "vscode" else "mcpServers"]
    assert isinstance(servers, dict)
    entry = servers["hoard"]
    assert entry["command"] == str(installed / "hoard")
    assert entry["args"][:3] == ["serve", "--vault", str(EXAMPLE_VAULT)]
    if client in ("claude-code", "vscode"):
        assert entry["type"] == "stdio"


async def test_the_snippet_starts_hoard_for_a_client_with_no_path_at_all(
    installed: Path, tmp_path: Path
) -> None:
    config = mcp_config(installed, tmp_path, "claude-desktop")
    entry = config["mcpServers"]["hoard"]  # type: ignore[index]
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=clean_env(tmp_path, None)
    )
    async with Client(params) as c:
        policy = await c.call_tool("vault_policy", {})
    assert policy.structured_content is not None
    assert policy.structured_content["caller"] == "local"
