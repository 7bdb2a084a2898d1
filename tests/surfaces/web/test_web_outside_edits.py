"""Edits made outside hoard (another editor, a ``git pull``: the file written directly) reach
open pages like hoard's own writes do: an open note page shows the new text within 3 s, and
an open editor says "changed on disk" at once, keeps what was typed, and has the view with
both versions one click away."""

from __future__ import annotations

import time
from typing import Any

from .support import Site

LIVE_WITHIN_MS = 3000


def _open_and_watch(page: Any, url: str) -> None:
    """Open ``url`` and wait for its first live poll, so the page knows the stamp before
    anything changes."""
    with page.expect_response(lambda r: r.url.endswith("/live")):
        page.goto(url)


def test_an_outside_write_shows_on_an_open_note_page_within_three_seconds(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    rel = "logs/2026-02-deploy-log.md"
    _open_and_watch(page, f"{site.url}/n/{rel}")
    assert "Written by another editor" not in page.inner_text("main")
    disk = site.vault / rel
    disk.write_text(
        disk.read_text(encoding="utf-8") + "\nWritten by another editor, not by hoard.\n",
        encoding="utf-8",
    )
    written = time.monotonic()

    page.wait_for_selector("text=Written by another editor, not by hoard.", timeout=LIVE_WITHIN_MS)

    assert time.monotonic() - written < LIVE_WITHIN_MS / 1000


def test_an_outside_write_raises_the_notice_in_an_open_editor_and_keeps_the_typed_text(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    rel = "logs/2026-03-deploy-log.md"
    _open_and_watch(page, f"{site.url}/edit/{rel}")
    typed = page.input_value("#content") + "\nTyped in the browser, not saved yet.\n"
    page.fill("#content", typed)
    disk = site.vault / rel
    on_disk = disk.read_text(encoding="utf-8") + "\nWritten by another editor meanwhile.\n"
    disk.write_text(on_disk, encoding="utf-8")

    notice = page.wait_for_selector("#disk-status .warn", timeout=LIVE_WITHIN_MS)

    assert notice is not None
    assert "changed on disk" in notice.inner_text()
    assert page.input_value("#content") == typed
    with page.expect_navigation():
        page.click("#show-both")  # one click to the view with both versions
    assert page.input_value("#content") == typed
    assert "Written by another editor meanwhile." in page.inner_text("#disk")
    assert disk.read_text(encoding="utf-8") == on_disk
