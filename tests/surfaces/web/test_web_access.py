"""The Access page: a grant names a caller picked from the callers the vault knows (a name
nobody holds is refused in words, and nothing is granted); revoking a caller or signing out
a session asks first, and only the second press does it."""

from __future__ import annotations

from typing import Any

from .support import Site, sign_in

HARMLESS_GLOB = "secret/not-a-folder/**"


def test_the_grant_form_picks_a_caller_from_the_known_ones(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/access")
    offered = page.eval_on_selector_all("#g-caller option", "os => os.map(o => o.value)")
    assert {"owner", "agent", "reader", "local"} <= set(offered)
    page.select_option("#g-caller", "reader")
    page.fill("#g-glob", HARMLESS_GLOB)
    page.click("form[action='/access/grants'] button[type=submit]")
    page.wait_for_selector("p.ok >> text=grant added")
    granted = [g for g in site.hoard.deps.ledger.active_grants() if g.glob == HARMLESS_GLOB]
    assert [g.caller for g in granted] == ["reader"]
    for g in granted:
        site.hoard.deps.ledger.revoke_grant(g.grant_id)


def test_a_grant_to_a_caller_that_does_not_exist_is_refused(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/access")
    # A forged form (an old page, a typo in a crafted request): the name is not on the list.
    page.eval_on_selector(
        "#g-caller",
        "s => { s.add(new Option('nobody-here', 'nobody-here')); s.value = 'nobody-here'; }",
    )
    page.fill("#g-glob", HARMLESS_GLOB)
    with page.expect_navigation():
        page.click("form[action='/access/grants'] button[type=submit]")
    alert = page.inner_text("p.error[role=alert]")
    assert "There is no caller named 'nobody-here', so nothing was granted" in alert
    assert [g for g in site.hoard.deps.ledger.active_grants() if g.caller == "nobody-here"] == []


def test_revoking_a_caller_asks_first_and_only_the_second_press_revokes(
    owner_page: Any, site: Site
) -> None:
    site.tokens.add("short-lived-bot", "read", "propose")
    page = owner_page
    page.goto(f"{site.url}/access")
    row = page.locator("tr", has_text="short-lived-bot")
    row.locator("button.revoke-caller").click()
    ask = page.locator("#ask")
    ask.wait_for()
    assert "Revoke the caller short-lived-bot?" in ask.inner_text()
    assert "Its token stops working at once" in ask.inner_text()
    assert site.tokens.find("short-lived-bot") is not None  # asking revoked nothing
    page.click("#ask-no")
    page.locator("tr", has_text="short-lived-bot").locator("button.revoke-caller").click()
    page.click("#ask-yes")
    page.wait_for_selector("p.ok >> text=revoked caller short-lived-bot")
    assert site.tokens.find("short-lived-bot") is None
    assert page.locator("tr", has_text="short-lived-bot").count() == 0


def test_signing_out_a_session_asks_first_and_only_the_second_press_signs_it_out(
    owner_page: Any, browser: Any, site: Site
) -> None:
    other = browser.new_context()
    elsewhere = other.new_page()
    sign_in(elsewhere, site)
    sessions = site.hoard.owner_tools(site.tokens)[0]
    newest = max(sessions.active(), key=lambda s: s.created_at).session_id
    page = owner_page
    page.goto(f"{site.url}/access")
    page.locator("tr", has_text=newest).locator("button.revoke-session").click()
    ask = page.locator("#ask")
    ask.wait_for()
    assert f"Sign out the session {newest}?" in ask.inner_text()
    assert "That browser is signed out at once" in ask.inner_text()
    elsewhere.goto(f"{site.url}/inbox")
    assert elsewhere.url == f"{site.url}/inbox"  # still signed in while the owner decides
    page.click("#ask-yes")
    page.wait_for_selector("p.ok >> text=session revoked")
    elsewhere.goto(f"{site.url}/inbox")
    assert "/signin" in elsewhere.url
    other.close()
