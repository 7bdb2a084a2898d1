"""On a phone (390x844): the editor's Save stays in view and Ctrl/Cmd-S saves, with a
"Saved" notice; Activity is a list of cards with the archived notes (and Restore) on the
first screen and events in pages; inbox diffs wrap; tap targets are at least 44 px."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hoard.core.policy import OWNER
from tests.helpers import note_text as note

from .support import Site, WatchedBrowser, sign_in

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: WatchedBrowser, site: Site) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in(page, site)
    yield page
    context.close()


def _in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


def test_the_editors_save_stays_in_view_and_ctrl_s_saves(phone: Any, site: Site) -> None:
    rel = "life/norrebro-apartment.md"
    phone.goto(f"{site.url}/edit/{rel}")
    assert _in_view(phone, "#save") and _in_view(phone, "#cancel")
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    phone.wait_for_function("window.scrollY > 0")
    assert _in_view(phone, "#save")  # the toolbar stays on screen
    text = phone.input_value("#content").replace("\n# ", "\nSaved with Ctrl-S.\n\n# ", 1)
    phone.fill("#content", text)
    phone.keyboard.press("Control+s")
    phone.wait_for_selector("#saved")
    assert phone.url.endswith(f"/n/{rel}")
    assert (site.vault / rel).read_text(encoding="utf-8") == text
    phone.reload()
    assert phone.locator("#saved").count() == 0  # said once


def test_activity_is_cards_with_restore_on_the_first_screen_and_pages_of_events(
    phone: Any, site: Site
) -> None:
    rel = "phone/archivable.md"
    written = site.hoard.writes.write(rel, note("Archivable", "To be archived."), caller=OWNER)
    site.hoard.writes.retirement.archive(rel, "archived", written.revision, caller=OWNER)
    for i in range(60):
        site.hoard.writes.write(f"paging/n{i:02}.md", note(f"Paging {i}"), caller=OWNER)
    phone.goto(f"{site.url}/activity")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    restore = "#archived li:has-text('phone/archivable.md') button.restore"
    assert _in_view(phone, restore)
    assert phone.locator("#events table").count() == 0
    phone.goto(f"{site.url}/activity?path=phone/")
    assert phone.locator("ol.events a[href^='/rev/']").all_inner_texts() == ["archived"]
    phone.goto(f"{site.url}/activity?path=paging/")
    first = phone.locator("ol.events li.event").all_inner_texts()
    assert len(first) == 50 and "paging/n59.md" in first[0]
    phone.click("#older")
    phone.wait_for_url("**page=1")
    rest = phone.locator("ol.events li.event").all_inner_texts()
    assert len(rest) > 0 and not set(rest) & set(first)
    assert all("paging/n" in r for r in rest)
    assert phone.locator("#newer").count() == 1


def test_inbox_diffs_wrap_instead_of_scrolling_sideways(phone: Any, site: Site) -> None:
    long_line = "A very long proposed line " * 12
    result = site.mcp(
        site.agent_token,
        "vault_write",
        {"path": "phone/long-line.md", "content": note("Long line", long_line)},
    )
    pid = result.structured_content["proposal_id"]
    phone.goto(f"{site.url}/inbox")
    diff = phone.locator(f"#proposal-{pid} .diff")
    assert diff.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    site.hoard.writes.reject(pid, caller=OWNER)


@pytest.mark.parametrize(
    "path", ["/", "/inbox", "/activity", "/access", "/browse", "/n/tech/hue-bridge.md",
             "/edit/tech/hue-bridge.md", "/n/projects/home-automation-revamp.md"],
)  # fmt: skip
def test_tap_targets_are_at_least_44_px(phone: Any, site: Site, path: str) -> None:
    phone.goto(f"{site.url}{path}")
    small = phone.evaluate(
        """() => Array.from(document.querySelectorAll(
              'button, a.button, header.top nav a, select, input:not([type=hidden])'))
            .filter(e => e.offsetParent !== null && !e.closest('dialog'))
            .map(e => [e.id || e.textContent.trim() || e.name,
                       (e.type === 'checkbox' || e.type === 'radio') && e.closest('label')
                         ? e.closest('label').getBoundingClientRect()  // the label is the target
                         : e.getBoundingClientRect()])
            .filter(([, r]) => r.height < 44 || r.width < 24)
            .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    assert small == []
