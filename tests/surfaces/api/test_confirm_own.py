"""A proposal needs a confirmation its maker cannot give by itself unless it may: a
propose-mode token holding ``confirm`` is refused on its own proposal (``forbidden``, through
the JSON API and MCP over HTTP), a token made with ``--confirm-own`` confirms it, the local
stdio caller confirms its own (the chat client asks the person), and the owner confirms
anyone's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.server import HoardMCP
from tests.surfaces.api.conftest import Api, note, serving

PROPOSE_CONFIRM = "read,write,confirm"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("confirm-own")) as api:
        for name, own in (("bot", False), ("trusted-bot", True), ("other-bot", False)):
            api.tokens[name] = api.store.add(name, PROPOSE_CONFIRM, "propose", own)[1]
        yield api


def propose(api: Api, who: str, rel: str) -> str:
    r = api.client(who).put(
        f"/notes/{rel}",
        json={"content": note("Proposed", f"A note {who} proposes.")},
        headers={"If-None-Match": "*"},
    )
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "proposed"
    return str(r.json()["proposal_id"])


def test_a_propose_mode_token_with_confirm_cannot_confirm_its_own_proposal(served: Api) -> None:
    pid = propose(served, "bot", "tech/own-api.md")
    r = served.client("bot").post(f"/proposals/{pid}/confirm")
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["error"] == "forbidden"
    assert "waits for the owner or another caller with the 'confirm' scope" in body["message"]
    assert not (served.vault / "tech" / "own-api.md").exists()
    pending = served.client("owner").get("/proposals").json()["proposals"]
    assert pid in {p["proposal_id"] for p in pending}
    refused = served.client("owner").get("/notes/tech/own-api.md/history").json()["events"]
    assert any(e["tool"] == "vault_confirm" and e["decision"] == "refused" for e in refused)


def test_another_caller_with_confirm_confirms_it(served: Api) -> None:
    pid = propose(served, "bot", "tech/by-other.md")
    r = served.client("other-bot").post(f"/proposals/{pid}/confirm")
    assert r.status_code == 200, r.text
    assert (served.vault / "tech" / "by-other.md").exists()


def test_a_token_made_with_confirm_own_confirms_its_own_proposal(served: Api) -> None:
    pid = propose(served, "trusted-bot", "tech/trusted.md")
    r = served.client("trusted-bot").post(f"/proposals/{pid}/confirm")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "written"
    assert (served.vault / "tech" / "trusted.md").exists()


def test_the_owner_confirms_an_agents_proposal(served: Api) -> None:
    pid = propose(served, "bot", "tech/owner-confirms.md")
    r = served.client("owner").post(f"/proposals/{pid}/confirm")
    assert r.status_code == 200, r.text
    assert (served.vault / "tech" / "owner-confirms.md").exists()


def test_the_owner_signed_in_to_the_web_app_confirms_in_the_inbox(tmp_path: Path) -> None:
    with serving(tmp_path, web=True) as api:
        api.tokens["bot"] = api.store.add("bot", PROPOSE_CONFIRM, "propose")[1]
        pid = propose(api, "bot", "tech/inbox.md")
        with httpx2.Client(base_url=api.url, timeout=30.0) as web:
            signed = web.get(f"/signin/link?code={api.signin_code}", follow_redirects=True)
            assert signed.status_code == 200, signed.text
            inbox = web.get("/inbox")
            assert f"proposal-{pid}" in inbox.text
            csrf = inbox.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            done = web.post(f"/inbox/confirm/{pid}", data={"csrf": csrf})
        assert done.status_code == 200, done.text
        assert "Confirmed" in done.text
        assert (api.vault / "tech" / "inbox.md").exists()


def test_vault_policy_says_whether_a_caller_confirms_its_own(served: Api) -> None:
    bot = served.client("bot").get("/policy").json()
    trusted = served.client("trusted-bot").get("/policy").json()
    assert bot["confirm_own"] is False
    assert any("cannot confirm a proposal you made yourself" in n for n in bot["notes"])
    assert trusted["confirm_own"] is True
    assert not any("cannot confirm a proposal you made" in n for n in trusted["notes"])
    listed = {c["name"]: c for c in served.client("owner").get("/admin/tokens").json()["callers"]}
    assert listed["trusted-bot"]["confirm_own"] is True
    assert listed["bot"]["confirm_own"] is False


def test_the_owner_adds_a_confirm_own_token_over_the_api(served: Api) -> None:
    r = served.client("owner").post(
        "/admin/tokens",
        json={"name": "api-made", "scopes": ["read", "write", "confirm"], "confirm_own": True},
    )
    assert r.status_code == 201, r.text
    assert r.json()["confirm_own"] is True
    assert served.store.find("api-made") is not None
    assert served.store.find("api-made").confirm_own  # type: ignore[union-attr]


async def _mcp_calls(api: Api, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as hc,
        Client(streamable_http_client(f"{api.url}/mcp", http_client=hc)) as c,
    ):
        for tool, args in calls:
            out.append(await c.call_tool(tool, args))
    return out


def _write(rel: str) -> tuple[str, dict[str, Any]]:
    return "vault_write", {"path": rel, "content": note("Over MCP", "Proposed over MCP.")}


@pytest.mark.anyio
async def test_over_mcp_the_token_is_refused_on_its_own_proposal(served: Api) -> None:
    (proposed,) = await _mcp_calls(served, served.tokens["bot"], [_write("tech/mcp-own.md")])
    pid = proposed.structured_content["proposal_id"]
    (refused,) = await _mcp_calls(
        served, served.tokens["bot"], [("vault_confirm", {"proposal_id": pid})]
    )
    assert refused.is_error
    obj = json.loads(refused.content[0].text)
    assert obj["error"] == "forbidden"
    assert "waits for the owner" in obj["message"]
    assert not (served.vault / "tech" / "mcp-own.md").exists()
    (policy,) = await _mcp_calls(served, served.tokens["bot"], [("vault_policy", {})])
    assert policy.structured_content["confirm_own"] is False


@pytest.mark.anyio
async def test_over_mcp_a_confirm_own_token_confirms_its_own(served: Api) -> None:
    token = served.tokens["trusted-bot"]
    (proposed,) = await _mcp_calls(served, token, [_write("tech/mcp-trusted.md")])
    pid = proposed.structured_content["proposal_id"]
    (done,) = await _mcp_calls(served, token, [("vault_confirm", {"proposal_id": pid})])
    assert not done.is_error, done.content
    assert done.structured_content["status"] == "written"
    assert (served.vault / "tech" / "mcp-trusted.md").exists()


@pytest.mark.anyio
async def test_the_local_stdio_caller_still_confirms_its_own_proposal(served: Api) -> None:
    mcp = HoardMCP(served.hoard, LOCAL_DEFAULT)
    try:
        async with Client(mcp.server) as c:
            proposed = await c.call_tool(*_write("tech/local-own.md"))
            pid = proposed.structured_content["proposal_id"]
            policy = await c.call_tool("vault_policy", {})
            done = await c.call_tool("vault_confirm", {"proposal_id": pid})
    finally:
        mcp.close()
    assert proposed.structured_content["status"] == "proposed"
    assert policy.structured_content["confirm_own"] is True
    assert not done.is_error, done.content
    assert (served.vault / "tech" / "local-own.md").exists()
