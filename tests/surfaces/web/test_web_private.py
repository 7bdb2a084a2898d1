"""Private notes are shown only when the server is bound to loopback: the same vault through
a web app built for a non-loopback bind hides them from search, browse and the note page.
The owner edits, moves and archives them only on a server no other machine reaches; where
one can, their page offers no Edit, Move or Archive and says why."""

from __future__ import annotations

import concurrent.futures
import dataclasses
from collections.abc import Iterator, MutableMapping
from typing import Any

import anyio
import pytest

from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.web import build_web
from tests.helpers import LiveServer

from .support import Site, WatchedBrowser, sign_in

Message = MutableMapping[str, Any]


def get(app: Any, path: str, cookie: str) -> tuple[int, str]:
    """One GET through the ASGI app, in process."""
    raw, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw,
        "raw_path": raw.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "root_path": "",
    }
    out: dict[str, Any] = {"body": b""}

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        else:
            out["body"] += message.get("body", b"")

    # In a thread of its own: the browser tests' event loop may hold this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, app, scope, receive, send).result(timeout=60)
    return out["status"], out["body"].decode("utf-8", "replace")


def test_private_notes_stay_hidden_unless_bound_to_loopback(site: Site) -> None:
    sessions, _ = site.hoard.owner_tools(site.tokens)
    secret, _ = sessions.sign_in(site.owner_token, "test")
    cookie = f"hoard_session={secret}"
    remote, _ = build_web(site.hoard, site.tokens, show_private=False)
    local, _ = build_web(site.hoard, site.tokens, show_private=True)
    note = "/n/personal-notes/budget-2026.md"
    assert get(local, note, cookie)[0] == 200
    assert get(remote, note, cookie)[0] == 404
    query = "/search/results?q=Boligafgift"
    assert "budget-2026" in get(local, query, cookie)[1]
    assert "budget-2026" not in get(remote, query, cookie)[1]
    assert "personal-notes" not in get(remote, "/browse", cookie)[1]


def test_the_owner_on_loopback_edits_a_private_note_and_it_saves(
    owner_page: Any, site: Site
) -> None:
    rel = "personal-notes/packing-list.md"
    disk = site.vault / rel
    disk.write_text("# Packing list\n\nTent, stove.\n", encoding="utf-8")
    page = owner_page
    page.goto(f"{site.url}/n/{rel}")
    assert page.locator("#private-lock").count() == 0
    page.click(f"a.button[href='/edit/{rel}']")
    page.wait_for_selector("#content")
    page.fill("#content", "# Packing list\n\nTent, stove, a spare tube.\n")
    page.click("#save")
    page.wait_for_selector("#saved")
    assert disk.read_text(encoding="utf-8") == "# Packing list\n\nTent, stove, a spare tube.\n"
    assert page.locator("a[href^='/move/'], a[href^='/archive/']").count() == 2


@pytest.fixture
def reachable(site: Site) -> Iterator[Site]:
    """The same vault through a second server whose web app may not change private notes,
    as when hoard is reachable from other machines (here: a public address in front of a
    loopback bind, so private notes are still shown to the owner)."""
    live = LiveServer()
    mcp = HoardMCP(site.hoard, LOCAL_DEFAULT)
    web, _ = build_web(site.hoard, site.tokens, show_private=True, private_writes=False)
    live.start(build_app(mcp, site.tokens, "127.0.0.1", live.port, web=web))
    try:
        yield dataclasses.replace(site, url=live.url)
    finally:
        live.stop()
        mcp.close()


def test_a_server_reachable_from_other_machines_offers_no_changes_to_a_private_note(
    browser: WatchedBrowser, reachable: Site
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        sign_in(page, reachable)
        page.goto(f"{reachable.url}/n/personal-notes/health-log.md")
        why = page.inner_text("#private-lock")
        assert "private" in why and "reached from other machines" in why
        actions = page.locator("p.actions")
        assert (
            actions.locator("a[href^='/edit/'], a[href^='/move/'], a[href^='/archive/']").count()
            == 0
        )
        assert actions.locator("text=Edit").count() == 0
        page.goto(f"{reachable.url}/n/tech/hue-bridge.md")  # a note that is not private
        assert page.locator("#private-lock").count() == 0
        assert page.locator("p.actions a[href^='/edit/']").count() == 1
    finally:
        context.close()
