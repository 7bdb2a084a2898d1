"""The owner's flows in a real browser (Chromium through Playwright): sign-in and out,
search → open → edit → save, the conflict view, the inbox fed by a real MCP client,
access requests and their expiry, archive and restore, hostile notes, CSRF."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from hoard.core.policy import OWNER
from tests.helpers import note_text as note

from .support import SECRET_WORD, Site, sign_in


def test_sign_in_with_an_admin_token_and_sign_out(browser: Any, site: Site) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site.url}/inbox")
    assert page.url.startswith(f"{site.url}/signin")
    page.fill("#token", site.reader_token)
    page.click("button[type=submit]")
    assert "admin scope" in page.inner_text("[role=alert]")
    sign_in(page, site)
    assert page.is_visible("#q")
    page.click(".signout button")
    page.wait_for_url(f"{site.url}/signin")
    page.goto(f"{site.url}/")
    assert page.url.startswith(f"{site.url}/signin")
    context.close()


def test_search_open_edit_save_writes_exactly_the_new_bytes(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.fill("#q", "hue bridge")
    # as-you-type answers may still be replacing each other: wait for the note's own link
    hit = page.locator('ol.results li a.title[href="/n/tech/hue-bridge.md"]')
    hit.wait_for()
    assert page.locator("ol.results mark").count() > 0
    hit.click()
    page.wait_for_url("**/n/tech/hue-bridge.md")
    page.click("text=Edit")
    page.wait_for_selector("#content")
    new_text = (site.vault / "tech" / "hue-bridge.md").read_text(encoding="utf-8")
    new_text = new_text.rstrip("\n") + "\n\nA line added in the browser: ünïcode ✓.\n"
    page.fill("#content", new_text)
    page.click("#save")
    page.wait_for_url("**/n/tech/hue-bridge.md")
    assert (site.vault / "tech" / "hue-bridge.md").read_bytes() == new_text.encode("utf-8")
    assert "A line added in the browser" in page.inner_text("article.rendered")


def test_a_save_after_a_change_on_disk_shows_the_conflict_and_loses_nothing(
    owner_page: Any, site: Site, screenshots: Path
) -> None:
    path = site.vault / "tech" / "zigbee.md"
    page = owner_page
    page.goto(f"{site.url}/edit/tech/zigbee.md")
    mine = path.read_text(encoding="utf-8").rstrip("\n") + "\n\nMy edit from the browser.\n"
    page.fill("#content", mine)
    theirs = path.read_text(encoding="utf-8").rstrip("\n") + "\n\nAn edit made on disk.\n"
    path.write_text(theirs, encoding="utf-8")
    page.click("#save")
    page.wait_for_selector("#conflict")
    assert page.input_value("#content") == mine
    assert "An edit made on disk." in page.inner_text("#disk")
    assert path.read_text(encoding="utf-8") == theirs
    page.screenshot(path=str(screenshots / "conflict.png"), full_page=True)
    merged = theirs.rstrip("\n") + "\n\nMy edit from the browser.\n"
    page.fill("#content", merged)
    page.click("#keep-mine")
    page.wait_for_url("**/n/tech/zigbee.md")
    assert path.read_text(encoding="utf-8") == merged
    history = site.hoard.writes.retirement.history("tech/zigbee.md", caller=OWNER)
    assert any(r.sha256 for r in history.revisions)  # the disk version was preserved


def test_an_agents_proposal_appears_live_and_confirming_writes_it(
    owner_page: Any, site: Site, screenshots: Path
) -> None:
    page = owner_page
    page.goto(f"{site.url}/inbox")
    text = note("Proposed by an agent", "This note was proposed through MCP.")
    result = site.mcp(
        site.agent_token, "vault_write", {"path": "projects/agent-idea.md", "content": text}
    )
    assert not result.is_error, result.content
    pid = result.structured_content["proposal_id"]
    card = page.locator(f"#proposal-{pid}")
    card.wait_for(timeout=5000)  # no reload: the page updates itself
    assert page.inner_text("#badge").strip() != "0"
    page.screenshot(path=str(screenshots / "inbox.png"), full_page=True)
    card.locator("button.confirm").click()
    page.wait_for_selector(f"#proposal-{pid}", state="detached")
    assert (site.vault / "projects" / "agent-idea.md").read_text(encoding="utf-8") == text


def test_rejecting_a_proposal_writes_nothing(owner_page: Any, site: Site) -> None:
    page = owner_page
    text = note("Rejected", "Never written.")
    result = site.mcp(
        site.agent_token, "vault_write", {"path": "projects/rejected.md", "content": text}
    )
    pid = result.structured_content["proposal_id"]
    page.goto(f"{site.url}/inbox")
    page.locator(f"#proposal-{pid} button.reject").click()
    page.wait_for_selector(f"#proposal-{pid}", state="detached")
    assert not (site.vault / "projects" / "rejected.md").exists()
    assert site.hoard.writes.proposals(caller=OWNER).proposals == [] or all(
        p.proposal_id != pid for p in site.hoard.writes.proposals(caller=OWNER).proposals
    )


def _reads_secret(site: Site) -> bool:
    r = site.mcp(site.reader_token, "vault_read", {"path": "secret/plan.md"})
    return not r.is_error and SECRET_WORD in r.structured_content["content"]


def test_an_approved_access_request_lets_the_agent_read_until_it_expires(
    owner_page: Any, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _reads_secret(site)
    asked = site.mcp(
        site.reader_token, "vault_request_access", {"glob": "secret/**", "reason": "need it"}
    )
    assert not asked.is_error, asked.content
    page = owner_page
    page.goto(f"{site.url}/inbox")
    card = page.locator(".card.request", has_text="reader")
    card.locator("input[name=minutes]").fill("2")
    card.locator("button.approve").click()
    page.wait_for_selector("text=Granted reader")
    assert _reads_secret(site)
    # Two minutes later, by the ledger's clock the server reads grants from:
    later = time.time() + 121
    monkeypatch.setattr(site.hoard.ledger, "clock", lambda: later)
    assert not _reads_secret(site)


def test_archive_then_restore_from_the_history(owner_page: Any, site: Site) -> None:
    path = site.vault / "tech" / "network-diagram.md"
    original = path.read_bytes()
    page = owner_page
    page.goto(f"{site.url}/n/tech/network-diagram.md")
    page.click("text=Archive…")
    page.check("input[value=superseded]")
    page.click("#archive")
    page.wait_for_selector("text=There is no note at this path now.")
    assert not path.exists()
    page.click("button:has-text('Restore this revision') >> nth=-1")
    page.wait_for_url("**/n/tech/network-diagram.md")
    page.wait_for_selector("article.rendered")
    assert path.read_bytes() == original


def test_a_hostile_note_renders_inert(owner_page: Any, site: Site) -> None:
    body = (
        "<script>alert('script')</script>\n\n"
        '<img src="x" onerror="alert(\'onerror\')">\n\n'
        '<a href="javascript:alert(\'js\')" id="jslink">click me</a>\n\n'
        "[md link](javascript:alert('md'))\n\n"
        '<img src="https://example.com/tracker.png">\n\n'
        '<iframe src="https://example.com/"></iframe>\n'
    )
    (site.vault / "tech" / "hostile.md").write_text(note("Hostile", body), encoding="utf-8")
    page = owner_page
    dialogs: list[str] = []
    outside: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(site.url) else None)
    page.goto(f"{site.url}/n/tech/hostile.md")
    page.wait_for_selector("article.rendered")
    found = page.evaluate(
        """() => {
          const a = document.querySelector('article.rendered');
          const all = Array.from(a.querySelectorAll('*'));
          return {
            scripts: a.querySelectorAll('script, iframe, img[src]').length,
            handlers: all.filter(e => Array.from(e.attributes).some(
              x => x.name.startsWith('on'))).length,
            js: all.filter(e => (e.getAttribute('href') || '').trim().toLowerCase()
              .startsWith('javascript:')).length,
          };
        }"""
    )
    assert found == {"scripts": 0, "handlers": 0, "js": 0}
    page.click("text=click me")
    assert dialogs == []
    assert outside == []


def test_a_form_posted_from_a_foreign_origin_is_refused(
    owner_page: Any, site: Site, tmp_path: Path
) -> None:
    before = (site.vault / "tech" / "git-tips.md").read_bytes()
    attack = tmp_path / "attack.html"
    attack.write_text(
        f'<form id="f" method="post" action="{site.url}/archive/tech/git-tips.md">'
        '<input name="reason" value="archived"><input name="csrf" value="guess"></form>',
        encoding="utf-8",
    )
    page = owner_page
    page.goto(attack.as_uri())
    with page.expect_navigation():
        page.evaluate("document.getElementById('f').submit()")
    assert "refused" in page.content().lower() or "forbidden" in page.content().lower()
    assert (site.vault / "tech" / "git-tips.md").read_bytes() == before


def test_the_live_endpoint_answers_304_while_nothing_changes(owner_page: Any, site: Site) -> None:
    first = owner_page.request.get(f"{site.url}/live")
    etag = first.headers["etag"]
    again = owner_page.request.get(f"{site.url}/live", headers={"If-None-Match": etag})
    assert again.status == 304
    assert json.loads(first.text())["stamp"]
    time.sleep(0)  # keep the import honest for type checkers


def test_a_live_update_never_replaces_an_open_editors_text(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/edit/tech/uptime-monitoring.md")
    typed = page.input_value("#content") + "\nUnsaved words typed in the browser.\n"
    page.fill("#content", typed)
    current = site.hoard.reading.read("tech/uptime-monitoring.md", caller=OWNER)
    changed = current.content.rstrip("\n") + "\n\nChanged by someone else.\n"
    site.hoard.writes.write("tech/uptime-monitoring.md", changed, current.revision, caller=OWNER)
    page.wait_for_selector("#disk-status .warn", timeout=5000)  # the page noticed by itself
    assert page.input_value("#content") == typed


def test_as_you_type_search_asks_once_per_new_text_from_the_first_character(
    owner_page: Any,
) -> None:
    page = owner_page
    asked: list[str] = []
    page.on(
        "request",
        lambda r: (
            asked.append(r.url.partition("q=")[2].partition("&")[0])
            if "/search/results" in r.url
            else None
        ),
    )
    page.type("#q", "w", delay=30)
    page.wait_for_selector("ol.results li")
    assert asked == ["w"]
    with page.expect_request("**/search/results?q=wi*"):
        page.type("#q", "i", delay=30)
    page.wait_for_selector("ol.results li")
    with page.expect_request("**/search/results?q=wi*"):
        page.press("#q", "Enter")
    page.wait_for_selector("ol.results li")


def test_the_search_address_stays_on_the_search_page_and_reopens_the_results(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    page.goto(f"{site.url}/")
    page.type("#q", "hue", delay=30)
    page.wait_for_url(f"{site.url}/?q=hue")
    page.wait_for_selector("ol.results li")
    page.select_option("select[name=folder]", "tech")
    page.wait_for_url(f"{site.url}/?q=hue&folder=tech")
    page.reload()
    page.wait_for_selector("ol.results li")
    assert page.input_value("#q") == "hue"
    assert page.locator("select[name=folder]").input_value() == "tech"
    assert page.locator("ol.results a[href='/n/tech/hue-bridge.md']").count() >= 1
