"""Browse lists notes by their titles (the file name beside it) and leaves out the vault's
``hoard.toml`` and dot-files and dot-folders (an editor's ``.obsidian``, ``.DS_Store``)."""

from __future__ import annotations

from typing import Any

from tests.helpers import note_text as note
from tests.helpers import wait_until

from .support import Site


def test_browse_shows_titles_and_hides_the_config_and_dot_files(
    owner_page: Any, site: Site
) -> None:
    (site.vault / ".obsidian").mkdir(exist_ok=True)
    (site.vault / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    (site.vault / ".DS_Store").write_bytes(b"\0")
    assert (site.vault / "hoard.toml").exists()
    page = owner_page
    page.goto(f"{site.url}/browse")
    tree = page.inner_text("ul.tree")
    assert "tech/" in tree
    for hidden in ("hoard.toml", ".obsidian", ".DS_Store"):
        assert hidden not in tree

    page.click("ul.tree >> text=tech/")
    page.wait_for_url("**/browse?path=tech")
    link = page.locator("ul.tree a[href='/n/tech/hue-bridge.md']")
    assert link.inner_text() == "Hue Bridge Firmware Runbook"
    item = link.locator("xpath=..")
    assert "hue-bridge.md" in item.inner_text()


def test_a_tag_written_inline_is_listed_and_has_its_page(owner_page: Any, site: Site) -> None:
    body = "Pairs with the bridge over #zigbee-mesh/radio. Ticket #314 is not a tag.\n"
    path = site.vault / "tech" / "inline-tagged.md"
    path.write_text(note("Inline tagged radio", body), encoding="utf-8")
    page = owner_page
    try:

        def listed() -> bool:
            page.goto(f"{site.url}/browse")
            return "zigbee-mesh/radio" in page.inner_text("p.tags")

        wait_until(listed)
        assert "314" not in page.inner_text("p.tags")
        page.click("p.tags >> text=zigbee-mesh/radio")
        page.wait_for_url("**/tags/zigbee-mesh/radio")
        assert "Inline tagged radio" in page.inner_text("main")
    finally:
        path.unlink()
