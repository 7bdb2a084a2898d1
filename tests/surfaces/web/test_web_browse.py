"""Browse lists notes by their titles (the file name beside it) and leaves out the vault's
``hoard.toml`` and dot-files and dot-folders (an editor's ``.obsidian``, ``.DS_Store``)."""

from __future__ import annotations

from typing import Any

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
