"""Sync on every surface: vault_sync_status through the SDK's client, GET and POST
/api/v1/sync on a real server, and ``hoard sync`` from the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.surfaces.cli.main import run
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from tests.app.sync.conftest import Site, note
from tests.helpers import LiveServer


@pytest.mark.anyio
async def test_vault_sync_status_reports_the_remote_and_a_write_says_it_is_not_synced_yet(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    async with Client(HoardMCP(a, OWNER).server) as c:
        wrote = await c.call_tool("vault_write", {"path": "tech/x.md", "content": note("X")})
        assert wrote.structured_content is not None
        assert wrote.structured_content["synced"] is False
        status = (await c.call_tool("vault_sync_status", {})).structured_content
    assert status is not None
    assert (status["enabled"], status["remote"], status["branch"]) == (True, "origin", "main")
    assert status["unpushed"]["count"] == 1 and status["last_error"] is None


def test_the_json_api_reports_the_status_and_syncs_on_demand(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path
) -> None:
    a = hoards("a")
    store = TokenStore(tmp_path / "tokens.json")
    token = store.add("owner", "read,write,confirm,maintenance,admin", "direct")[1]
    reader = store.add("reader", "read", "propose")[1]
    mcp = HoardMCP(a, OWNER)
    live = LiveServer()
    live.start(build_app(mcp, store, "127.0.0.1", live.port))
    try:
        with httpx2.Client(
            base_url=f"{live.url}/api/v1", headers={"Authorization": f"Bearer {token}"}
        ) as c:
            a.writes.write("tech/y.md", note("Y"), caller=OWNER)
            before = c.get("/sync").json()
            assert before["unpushed"]["count"] == 1
            ran = c.post("/sync")
            assert ran.status_code == 200, ran.text
            body: dict[str, Any] = ran.json()
            assert body["error"] is None and body["pushed"]
            assert body["status"]["unpushed"]["count"] == 0
            assert c.get("/sync").json()["last_push"]["commit"] == body["pushed"]
        with httpx2.Client(
            base_url=f"{live.url}/api/v1", headers={"Authorization": f"Bearer {reader}"}
        ) as r:
            assert r.get("/sync").status_code == 200
            assert r.post("/sync").json()["error"] == "forbidden"
    finally:
        live.stop()
        mcp.close()


def test_hoard_sync_pulls_and_pushes_and_sync_status_prints_json(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = site.clone("cli")
    state = ["--vault", str(vault), "--state-dir", str(tmp_path / "state-cli")]
    site.person_commit({"tech/z.md": note("Zed", "From the laptop.")})
    assert run(["sync", *state]) == 0
    out = capsys.readouterr().out
    assert "pulled" in out and "tech/z.md" in out
    assert run(["sync", "--status", "--json", *state]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["remote"] == "origin" and status["last_pull"]["commit"]
