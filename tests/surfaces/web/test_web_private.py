"""Private notes are shown only when the server is bound to loopback: the same vault through
a web app built for a non-loopback bind hides them from search, browse and the note page."""

from __future__ import annotations

import concurrent.futures
from collections.abc import MutableMapping
from typing import Any

import anyio

from hoard.surfaces.web import build_web

from .support import Site

Message = MutableMapping[str, Any]


def get(app: Any, path: str, cookie: str) -> tuple[int, str]:
    """One GET through the ASGI app, in process."""
    raw, _, query = path.partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": raw, "raw_path": raw.encode(), "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "root_path": "",
    }  # fmt: skip
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
