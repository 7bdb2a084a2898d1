"""Search results and palette entries read as text, with the note's folder, tags and
``updated`` beside the title."""

from __future__ import annotations

from typing import Any

from tests.helpers import note_text as note

from .support import Site

BODY = (
    "## Quokka feeding\n\n"
    "The **quokka** eats [[tech/zigbee|leaves]] at night; see [[tech/hue-bridge]].\n\n"
    "| quokka | grams |\n|---|---|\n| adult | 500 |\n\n"
    "- quokka list item\n"
)


def _write_markup_note(site: Site) -> None:
    text = note("Quokka care", BODY, tags=["marsupial", "zoo"], updated="2026-02-14")
    (site.vault / "tech" / "quokka-care.md").write_text(text, encoding="utf-8")


def test_a_result_shows_text_not_markdown_and_its_folder_tags_and_updated(
    owner_page: Any, site: Site
) -> None:
    _write_markup_note(site)
    page = owner_page
    page.goto(f"{site.url}/")
    page.fill("input[name=q]", "quokka")
    hit = page.locator("ol.results li", has_text="Quokka care")
    hit.wait_for()
    snippet = hit.locator(".snippet").inner_text()
    assert "quokka" in snippet.lower()
    for syntax in ("**", "[[", "]]", "##", "|"):
        assert syntax not in snippet
    assert "leaves" in snippet
    assert hit.locator(".snippet mark").count() >= 1
    meta = hit.locator(".hit-meta").inner_text()
    assert "tech/" in meta
    assert "marsupial" in meta and "zoo" in meta
    assert "updated 2026-02-14" in meta


def test_a_palette_entry_shows_the_folder_tags_and_updated(owner_page: Any, site: Site) -> None:
    _write_markup_note(site)
    page = owner_page
    page.goto(f"{site.url}/browse")
    page.keyboard.press("Control+k")
    page.wait_for_selector("#palette[open]")
    page.fill("#palette-q", "quokka")
    item = page.locator("#palette-results .palette-item", has_text="Quokka care")
    item.wait_for()
    text = item.inner_text()
    assert "tech/" in text and "marsupial" in text and "updated 2026-02-14" in text
    for syntax in ("**", "[[", "##"):
        assert syntax not in text


def test_leaving_the_search_field_does_not_ask_again_for_the_answered_results(
    owner_page: Any, site: Site
) -> None:
    """A click on a result first takes the focus from the field; were that to search again,
    the new results would replace the link between the press and the release of the click,
    and the click would open nothing."""
    page = owner_page
    page.goto(f"{site.url}/")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/search/results" in r.url else None)
    page.fill("#q", "hue bridge")
    page.locator('ol.results a.title[href="/n/tech/hue-bridge.md"]').wait_for()
    page.wait_for_timeout(400)  # any answer still under way for the typed value
    before = len(asked)

    page.locator("#q").blur()  # as a click elsewhere takes the focus
    page.wait_for_timeout(600)

    assert before >= 1
    assert len(asked) == before
