"""A person's editor saves a stale buffer over an agent's acknowledged write, on the real
server: the agent writes through MCP over HTTP, the editor (the test) writes the file
directly, the watcher notices. vault_history shows both revisions and returns both bytes;
the owner's inbox, in Chromium, shows both versions and restores the agent's with one click.
A save that keeps the write's lines is recorded but makes no inbox item."""

from __future__ import annotations

import hashlib
from typing import Any

from hoard.app.writes.clobbers import ClobberItem
from hoard.core.policy import OWNER
from tests.helpers import note_text, wait_until, write_file

from .support import Site

OLD = note_text("Porch light", "The porch light is on a timer.")
AGENT = note_text(
    "Porch light", "The porch light is on a timer.\n\nThe timer runs from dusk to 23:00."
)
STALE = note_text("Porch light", "The porch light is on a timer, set by the owner.")
KEEPS = note_text(
    "Porch light",
    "The porch light is on a timer, set by the owner.\n\nThe timer runs from dusk to 23:00.",
)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def agent_writes(site: Site, rel: str) -> str:
    """The person's note, then an agent's acknowledged write over it; the agent's name."""
    write_file(site.vault, rel, OLD)
    _, token = site.tokens.add(f"scribe-{rel.split('/')[-1][:-3]}", "read,write", "direct")
    result = site.mcp(
        token, "vault_write", {"path": rel, "content": AGENT, "expected_revision": digest(OLD)}
    )
    assert not result.is_error, result.content
    assert result.structured_content["status"] == "written"
    return f"scribe-{rel.split('/')[-1][:-3]}"


def item_for(site: Site, rel: str) -> ClobberItem | None:
    return next((c for c in site.hoard.clobbers.open(caller=OWNER) if c.path == rel), None)


def history(site: Site, **args: Any) -> dict[str, Any]:
    result = site.mcp(site.owner_token, "vault_history", args)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_a_stale_buffer_save_shows_both_versions_in_history_and_the_inbox_restores_the_agents(
    owner_page: Any, site: Site
) -> None:
    rel = "home/porch-light.md"
    agent = agent_writes(site, rel)
    write_file(site.vault, rel, STALE)  # the editor saves the buffer it read before the write
    item = wait_until(lambda: item_for(site, rel), timeout=15)
    h = history(site, path=rel)
    assert [(k["revision_id"], k["reason"], k["caller"]) for k in h["kept"]] == [
        (digest(AGENT), "written", agent),
        (digest(STALE), "edited_outside", "outside"),
    ]
    assert ["outside", digest(AGENT), digest(STALE)] in [
        [e["caller"], e["before"], e["after"]] for e in h["events"]
    ]
    for text in (AGENT, STALE):
        assert history(site, revision_id=digest(text))["content"] == text

    page = owner_page
    page.goto(f"{site.url}/inbox")
    card = page.locator(f"#clobber-{item.event_id}")
    shown = card.inner_text()
    assert "An outside save replaced an agent's write: see both." in shown
    assert f"written by {agent}" in shown
    card.locator("details.agent summary").click()
    card.locator("details.outside summary").click()
    assert "The timer runs from dusk to 23:00." in card.locator("details.agent pre").inner_text()
    assert "set by the owner" in card.locator("details.outside pre").inner_text()
    card.locator("button.restore").click()
    page.wait_for_selector(f"#clobber-{item.event_id}", state="detached")
    assert f"Restored the agent's version of {rel}" in page.inner_text("#outcome")
    assert (site.vault / rel).read_text(encoding="utf-8") == AGENT
    assert item_for(site, rel) is None


def test_dismissing_in_the_inbox_keeps_the_outside_save(owner_page: Any, site: Site) -> None:
    rel = "home/porch-light-dismissed.md"
    agent_writes(site, rel)
    write_file(site.vault, rel, STALE)
    item = wait_until(lambda: item_for(site, rel), timeout=15)
    page = owner_page
    page.goto(f"{site.url}/inbox")
    page.locator(f"#clobber-{item.event_id} button.dismiss-clobber").click()
    page.wait_for_selector(f"#clobber-{item.event_id}", state="detached")
    assert "Kept the outside save" in page.inner_text("#outcome")
    assert (site.vault / rel).read_text(encoding="utf-8") == STALE


def test_an_outside_save_that_keeps_the_writes_lines_is_history_but_no_inbox_item(
    site: Site,
) -> None:
    rel = "home/porch-light-kept.md"
    agent_writes(site, rel)
    write_file(site.vault, rel, KEEPS)

    def recorded() -> bool:
        return digest(KEEPS) in [k["revision_id"] for k in history(site, path=rel)["kept"]]

    wait_until(recorded, timeout=15)
    assert item_for(site, rel) is None
