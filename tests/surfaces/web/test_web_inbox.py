"""The inbox keeps the outcome of what the owner did on the page (a live refresh never wipes
it; it goes when dismissed or when the owner acts again), and marks a proposal whose note
changed since it was made as stale, with the reason in words and only a Reject button."""

from __future__ import annotations

import time
from typing import Any

from hoard.core.policy import OWNER
from tests.helpers import wait_until

from .support import Site

HOLD_SECONDS = 5


def _propose_edit(site: Site, rel: str, line: str) -> str:
    now = site.hoard.reading.read(rel, caller=OWNER)
    head, sep, body = now.content.partition("\n---\n")  # before any generated Related block
    text = f"{head}{sep}\n{line}\n{body}"
    result = site.mcp(
        site.agent_token,
        "vault_write",
        {"path": rel, "content": text, "expected_revision": now.revision},
    )
    assert not result.is_error, result.content
    pid: str = result.structured_content["proposal_id"]
    return pid


def _stays(page: Any, selector: str, text: str, since: float) -> None:
    """``selector`` keeps showing ``text`` until HOLD_SECONDS after ``since`` (polled)."""

    def held() -> bool:
        assert text in page.inner_text(selector)
        return time.monotonic() - since >= HOLD_SECONDS

    wait_until(held, timeout=HOLD_SECONDS + 10, interval=0.25)


def test_a_confirms_outcome_survives_live_refreshes_until_the_owner_acts_again(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    first = _propose_edit(site, "life/cycling-routes.md", "A route proposed by an agent.")
    page.goto(f"{site.url}/inbox")
    page.locator(f"#proposal-{first} button.confirm").click()
    page.wait_for_selector("#outcome .ok")
    shown = time.monotonic()
    assert "Confirmed the write of life/cycling-routes.md by agent" in page.inner_text("#outcome")
    second = _propose_edit(site, "life/weekend-in-aarhus.md", "Another proposal arrives.")
    page.locator(f"#proposal-{second}").wait_for()  # the lists refreshed live...
    _stays(page, "#outcome", "Confirmed the write of life/cycling-routes.md", shown)  # it stays
    page.locator(f"#proposal-{second} button.reject").click()  # acting again replaces it
    page.wait_for_selector("#outcome >> text=Rejected the write of life/weekend-in-aarhus.md")
    assert "cycling-routes" not in page.inner_text("#outcome")
    page.click("#outcome button.dismiss")
    assert page.inner_text("#outcome").strip() == ""


def test_a_refused_confirm_is_still_on_the_page_five_seconds_later(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    rel = "life/aebleskiver-recipe.md"
    pid = _propose_edit(site, rel, "More sugar, says the agent.")
    page.goto(f"{site.url}/inbox")
    page.locator(f"#proposal-{pid} button.confirm").wait_for()
    disk = site.vault / rel
    disk.write_text(disk.read_text(encoding="utf-8") + "\nEdited in another editor.\n", "utf-8")
    # The owner presses Confirm on the card as it was loaded (before any refresh marks it).
    page.evaluate(
        "id => htmx.ajax('POST', '/inbox/confirm/' + id,"
        " {source: document.body, target: '#inbox-lists', swap: 'outerHTML'})",
        pid,
    )
    page.wait_for_selector("#refusal")
    shown = time.monotonic()
    assert "Confirming the write of life/aebleskiver-recipe.md by agent was refused" in (
        page.inner_text("#refusal")
    )
    other = _propose_edit(site, "life/learning-danish.md", "A refresh-causing proposal.")
    page.locator(f"#proposal-{other}").wait_for()
    _stays(page, "#refusal", "was refused", shown)
    for leftover in (pid, other):
        site.hoard.writes.reject(leftover, caller=OWNER)


def test_a_stale_proposal_says_why_and_offers_only_reject(owner_page: Any, site: Site) -> None:
    page = owner_page
    rel = "life/svickova-recipe.md"
    pid = _propose_edit(site, rel, "Add cranberries.")
    disk = site.vault / rel
    changed = disk.read_text(encoding="utf-8") + "\nThe owner's own change.\n"
    disk.write_text(changed, encoding="utf-8")
    page.goto(f"{site.url}/inbox")
    card = page.locator(f"#proposal-{pid}")
    assert "The note changed since this proposal was made" in card.inner_text()
    assert card.locator("button.confirm").count() == 0
    card.locator("button.reject").click()
    page.wait_for_selector(f"#proposal-{pid}", state="detached")
    assert "Rejected the write of life/svickova-recipe.md" in page.inner_text("#outcome")
    assert disk.read_text(encoding="utf-8") == changed


def test_a_proposal_that_expired_unanswered_is_shown_greyed_with_its_author_and_no_confirm(
    owner_page: Any, site: Site
) -> None:
    ledger = site.hoard.deps.ledger
    eight_days = 8 * 86400
    ledger.clock = lambda: time.time() - eight_days  # proposed 8 days ago: expired yesterday
    try:
        pid = _propose_edit(site, "life/danish-tax-notes.md", "Proposed and never answered.")
    finally:
        ledger.clock = time.time
    page = owner_page
    page.goto(f"{site.url}/inbox")
    card = page.locator(f"#expired-{pid}")
    card.wait_for()
    assert f"#proposal-{pid}" not in page.content()
    assert "by agent" in card.inner_text()
    assert "life/danish-tax-notes.md" in card.inner_text()
    assert card.locator("button").count() == 0
    assert float(card.evaluate("e => getComputedStyle(e).opacity")) < 1
