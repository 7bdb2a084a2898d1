"""The pages hold up under their own Content-Security-Policy: the sign-in page is styled
(its inline stylesheet matches the hash its CSP allows), a favicon is served, and the
browser fixture itself catches a CSP violation or a console error (so every other browser
test fails on one)."""

from __future__ import annotations

from typing import Any

import httpx2

from tests.helpers import wait_until

from .support import Site, WatchedBrowser


def test_the_sign_in_page_is_styled_with_no_csp_violation(
    browser: WatchedBrowser, site: Site
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{site.url}/signin")
    main = page.locator("main.signin")
    assert main.evaluate("e => getComputedStyle(e).maxWidth") == "420px"
    button = page.locator("button[type=submit]")
    assert button.evaluate("e => getComputedStyle(e).borderRadius") == "6px"
    assert browser.problems == []
    context.close()


def test_a_favicon_is_served_even_before_sign_in(site: Site) -> None:
    r = httpx2.get(f"{site.url}/favicon.ico")
    assert r.status_code == 200
    assert r.headers["content-type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00"  # an ICO header


def test_the_browser_fixture_catches_a_csp_violation_and_a_console_error(
    browser: WatchedBrowser, owner_page: Any, site: Site
) -> None:
    owner_page.goto(f"{site.url}/browse")
    owner_page.evaluate(
        "() => { const s = document.createElement('style'); s.textContent = 'b{}';"
        " document.head.appendChild(s); }"
    )
    owner_page.evaluate("() => console.error('something broke')")

    def both_seen() -> bool:
        owner_page.evaluate("1")  # lets Playwright deliver the page's events
        text = "\n".join(browser.problems)
        return "CSP violation: style-src-elem" in text and "something broke" in text

    wait_until(both_seen, timeout=10)
    browser.problems.clear()  # this test's problems were on purpose
