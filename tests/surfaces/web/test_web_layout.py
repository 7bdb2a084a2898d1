"""Every page fits a phone (390 px wide: no horizontal scroll), and the screenshots of the
main pages for the README."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .support import Site, sign_in

PAGES = (
    "/",
    "/?q=backup",
    "/n/tech/hue-bridge.md",
    "/edit/tech/hue-bridge.md",
    "/new?folder=tech",
    "/archive/tech/backup-strategy.md",
    "/move/tech/backup-strategy.md?to=tech/backups.md",
    "/inbox",
    "/access",
    "/activity",
    "/browse",
    "/browse?path=tech",
    "/tags/homelab",
    "/wl/no-such-note",
)


def test_every_page_fits_390_px_without_horizontal_scroll(browser: Any, site: Site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{site.url}/signin")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    sign_in(page, site)
    wide = []
    for path in PAGES:
        page.goto(f"{site.url}{path}")
        page.wait_for_load_state("load")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide.append((path, width))
    context.close()
    assert wide == []


SHOTS = (
    ("search", "/?q=backup"),
    ("note", "/n/tech/hue-bridge.md"),
    ("edit", "/edit/tech/hue-bridge.md"),
    ("inbox", "/inbox"),
    ("activity", "/activity"),
    ("access", "/access"),
    ("browse", "/browse?path=tech"),
)


def test_screenshots_of_the_main_pages_at_desktop_and_phone_width(
    browser: Any, site: Site, screenshots: Path
) -> None:
    """The pictures in docs/web.md: each main page's first screen at 1366x900 and at
    390x844, and the phone's without horizontal scroll."""
    for width, height in ((1366, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        sign_in(page, site)
        for name, path in SHOTS:
            page.goto(f"{site.url}{path}")
            page.wait_for_load_state("load")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            page.screenshot(path=str(screenshots / f"{name}-{width}.png"))
        context.close()
    for name, _ in SHOTS:
        for width in (1366, 390):
            assert (screenshots / f"{name}-{width}.png").stat().st_size > 10_000, name


def test_the_palette_opens_on_ctrl_k_and_jumps_to_a_note(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/inbox")
    page.keyboard.press("Control+k")
    page.wait_for_selector("#palette[open]")
    page.fill("#palette-q", "wireguard")
    page.wait_for_selector("#palette-results .palette-item")
    page.keyboard.press("Enter")
    page.wait_for_url("**/n/tech/wireguard-vpn.md")


def test_a_new_note_starts_from_a_valid_template_and_violations_are_named(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    page.goto(f"{site.url}/new?folder=projects")
    page.fill("#path", "projects/from-the-browser.md")
    template = page.input_value("#content")
    page.fill("#content", template.replace("tags: [projects, draft]", "tags: [Bad Tag]"))
    page.click("#save")
    page.wait_for_selector("#violations")
    bad = page.locator("#violations tr.bad[data-field=tags]")
    assert "Bad Tag" in bad.inner_text()  # the value as written, beside its problem
    flagged = page.locator("#violations tr.bad").evaluate_all(
        "rows => rows.map(r => r.dataset.field)"
    )
    assert "tags" in flagged and "title" not in flagged  # the other fields are fine
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    assert not (site.vault / "projects" / "from-the-browser.md").exists()
    page.fill("#content", template + "Written from the template.\n")
    page.click("#save")
    page.wait_for_url("**/n/projects/from-the-browser.md")
    written = (site.vault / "projects" / "from-the-browser.md").read_text(encoding="utf-8")
    assert written == template + "Written from the template.\n"
