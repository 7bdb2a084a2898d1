"""In a real browser: an agent in propose mode holding ``confirm`` is refused on its own
proposal (MCP over HTTP) and the owner confirms it in the inbox; the Access page shows and
sets whether a caller may confirm its own proposals."""

from __future__ import annotations

import json
from typing import Any

from tests.helpers import note_text as note
from tests.helpers import wait_until

from .support import Site


def test_an_agent_cannot_confirm_its_own_proposal_and_the_owner_confirms_it_in_the_inbox(
    owner_page: Any, site: Site
) -> None:
    _, token = site.tokens.add("self-confirmer", "read,write,confirm", "propose")
    rel = "life/self-confirm.md"
    proposed = site.mcp(token, "vault_write", {"path": rel, "content": note("Mine", "Mine.")})
    pid = proposed.structured_content["proposal_id"]
    refused = site.mcp(token, "vault_confirm", {"proposal_id": pid})
    assert refused.is_error
    assert json.loads(refused.content[0].text)["error"] == "forbidden"
    assert not (site.vault / rel).exists()

    page = owner_page
    page.goto(f"{site.url}/inbox")
    card = page.locator(f"#proposal-{pid}")
    assert "self-confirmer" in card.inner_text()
    card.locator("button.confirm").click()
    wait_until(lambda: (site.vault / rel).exists())
    page.wait_for_selector(f"#proposal-{pid}", state="detached")


def test_the_access_page_shows_and_sets_confirm_own(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/access")
    page.fill("#caller-name", "chat-helper")
    page.check("input[name=scope_write]")
    page.check("input[name=scope_confirm]")
    page.check("input[name=confirm_own]")
    page.click("form[action='/access/callers'] button[type=submit]")
    page.wait_for_selector("#new-token")
    entry = site.tokens.find("chat-helper")
    assert entry is not None and entry.confirm_own
    row = page.locator("tr", has_text="chat-helper")
    assert "confirms them itself" in row.inner_text()
    assert "wait for you" in page.locator("tr", has_text="reader").first.inner_text()
