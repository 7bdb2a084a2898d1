"""What each ``hoard`` command loads: the server stack (the MCP SDK, uvicorn, Starlette,
Jinja) only for ``serve``, and nothing of the app for ``--version``. Checked on the modules a
real console-script process imports (``python -X importtime``), not on a clock."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import hoard_env

SERVER_STACK = {"mcp", "mcp_types", "uvicorn", "starlette", "jinja2", "sse_starlette", "httpx2"}
#: Slow imports a search on the local vault never needs: pydantic (for ``--server`` and the
#: MCP layer), an HTTP client (a rerank endpoint), worker processes (a parallel rebuild).
NOT_FOR_A_SEARCH = {"pydantic", "urllib.request", "http.client", "multiprocessing"}
#: What a search on a folder never uses, even with attachments on (the default): their
#: extraction (the worker's PDF, Word and XML readers) and a shared store's driver.
NOT_FOR_A_FOLDER_SEARCH = {
    "hoard.adapters.attachments.worker",
    "hoard.adapters.store.pg",
    "hoard.adapters.store.pg_locks",
}
NOT_FOR_A_FOLDER_SEARCH_PACKAGES = {"psycopg", "psycopg_pool", "pypdfium2", "defusedxml"}
HTTP_SURFACES = ("hoard.surfaces.http", "hoard.surfaces.web", "hoard.surfaces.oauth")


def imported(hoard_bin: Path, args: list[str], tmp: Path, stdin: str = "") -> set[str]:
    """The modules ``hoard ARGS`` imported, by their full dotted names."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(hoard_bin), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=hoard_env(tmp),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert names, "python -X importtime printed no modules"
    return names


def tops(names: set[str]) -> set[str]:
    return {n.split(".")[0] for n in names}


def test_hoard_version_imports_neither_the_server_stack_nor_the_app(
    hoard_bin: Path, tmp_path: Path
) -> None:
    names = imported(hoard_bin, ["--version"], tmp_path)

    assert tops(names) & SERVER_STACK == set()
    assert {n for n in names if n.startswith(("hoard.app", "hoard.adapters"))} == set()


def test_hoard_search_loads_the_app_but_not_the_server_stack(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    where = ["--vault", str(example_vault), "--state-dir", str(tmp_path / "state")]
    names = imported(hoard_bin, ["search", "hue bridge", *where], tmp_path)

    assert "hoard.app.hoard" in names
    assert tops(names) & SERVER_STACK == set()
    assert names & NOT_FOR_A_SEARCH == set()


def test_a_search_on_a_folder_loads_neither_the_attachments_extraction_nor_a_shared_store(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    where = ["--vault", str(example_vault), "--state-dir", str(tmp_path / "state")]
    names = imported(hoard_bin, ["search", "hue bridge", *where], tmp_path)

    assert "hoard.adapters.attachments.indexer" in names  # attachments are searched
    assert names & NOT_FOR_A_FOLDER_SEARCH == set()
    assert tops(names) & NOT_FOR_A_FOLDER_SEARCH_PACKAGES == set()


def test_hoard_serve_over_stdio_loads_the_mcp_sdk_but_not_hoards_http_nor_its_web_app(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    where = ["--vault", str(example_vault), "--state-dir", str(tmp_path / "state")]
    names = imported(hoard_bin, ["serve", *where], tmp_path)  # stdin at its end: it stops

    assert "mcp" in tops(names)
    # The SDK itself loads Starlette and uvicorn; hoard's HTTP surfaces and Jinja stay out.
    assert "jinja2" not in tops(names)
    assert {n for n in names if n.startswith(HTTP_SURFACES)} == set()
    assert names & NOT_FOR_A_FOLDER_SEARCH == set()  # nothing to extract, no store URL


def test_serve_over_stdio_says_one_line_on_a_stderr_that_is_not_a_terminal(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [str(hoard_bin), "serve", "--vault", str(example_vault), "--state-dir", str(tmp_path)],
        input="",
        capture_output=True,
        text=True,
        env=hoard_env(tmp_path),
        timeout=120,
        check=False,
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, lines
    assert "serving" in lines[0] and "stdio" in lines[0]
    assert "hoard mcp-config" in lines[0]


def test_serve_over_stdio_reports_a_vault_it_cannot_open_while_it_loads_the_sdk(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(example_vault, vault)
    inside = vault / "state"  # the vault opens in a thread of its own: its refusal still ends it
    proc = subprocess.run(
        [str(hoard_bin), "serve", "--vault", str(vault), "--state-dir", str(inside)],
        input="",
        capture_output=True,
        text=True,
        env=hoard_env(tmp_path),
        timeout=120,
        check=False,
    )

    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "invalid_argument" in proc.stderr and "outside the vault" in proc.stderr
    assert "serving" not in proc.stderr


def test_serve_over_stdio_prints_the_client_configuration_on_a_terminal(
    hoard_bin: Path, example_vault: Path, tmp_path: Path
) -> None:
    leader, follower = os.openpty()
    try:
        proc = subprocess.run(
            [str(hoard_bin), "serve", "--vault", str(example_vault), "--state-dir", str(tmp_path)],
            input=b"",
            stdout=subprocess.PIPE,
            stderr=follower,
            env=hoard_env(tmp_path),
            timeout=120,
            check=False,
        )
        os.close(follower)
        follower = -1
        shown = b""
        while chunk := _read_some(leader):
            shown += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)

    assert proc.returncode == 0
    assert proc.stdout == b""
    text = shown.decode()
    assert "serving over stdio" in text
    assert '"mcpServers"' in text and '"--vault"' in text


def _read_some(fd: int) -> bytes:
    """What a pseudo-terminal holds; empty once its other end is closed and it is drained."""
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the other end is closed
        return b""
