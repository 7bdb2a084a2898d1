"""The note page's Move / rename button in a real browser: the dry run lists what the move
touches, the move rewrites the notes linking to it, and a collision or a stale revision is
refused with nothing changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hoard.core.policy import OWNER
from tests.helpers import note_text as note

from .support import Site


def _write(site: Site, path: str, text: str) -> None:
    site.hoard.writes.write(path, text, None, caller=OWNER)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md")) if p.is_file()
    }


def test_moving_a_linked_note_rewrites_the_link_and_lands_on_the_new_page(
    owner_page: Any, site: Site, screenshots: Path
) -> None:
    _write(site, "moving/alpha.md", note("Alpha", "The note that moves."))
    _write(site, "moving/linker.md", note("Linker", "See [[alpha]] and [[alpha|the first]]."))
    page = owner_page
    page.goto(f"{site.url}/n/moving/alpha.md")
    page.click("#move-open")
    page.fill("#new-path", "moved/omega.md")
    page.click("#move-preview")
    page.wait_for_selector("#move-plan")
    plan = page.inner_text("#move-plan")
    assert "moving/linker.md" in plan
    assert "moved/omega.md" in plan
    assert "+See [[omega]] and [[omega|the first]]." in plan  # the linking note's diff
    # The move reads as a rename, not as the whole note deleted in red.
    rename = page.inner_text("#move-rename")
    assert "moving/alpha.md → moved/omega.md" in rename and "text unchanged" in rename
    deleted = page.locator("#move-plan .d-del").all_inner_texts()
    assert not any("The note that moves." in line for line in deleted)
    assert (site.vault / "moving" / "alpha.md").exists()  # a dry run changes nothing
    page.screenshot(path=str(screenshots / "move.png"), full_page=True)
    page.click("#move")
    page.wait_for_url("**/n/moved/omega.md")
    assert "The note that moves." in page.inner_text("article.rendered")
    assert not (site.vault / "moving" / "alpha.md").exists()
    assert (site.vault / "moved" / "omega.md").read_text(encoding="utf-8").startswith("---")
    linker = (site.vault / "moving" / "linker.md").read_text(encoding="utf-8")
    assert "See [[omega]] and [[omega|the first]]." in linker
    assert "[[alpha" not in linker
    gone = page.goto(f"{site.url}/n/moving/alpha.md")
    assert gone is not None and gone.status == 404


def test_a_move_onto_a_note_or_after_a_change_on_disk_is_refused_and_changes_nothing(
    owner_page: Any, site: Site
) -> None:
    _write(site, "moving/beta.md", note("Beta", "Beta stays."))
    _write(site, "moving/gamma.md", note("Gamma", "Gamma is in the way."))
    page = owner_page
    page.goto(f"{site.url}/move/moving/beta.md")
    page.fill("#new-path", "moving/delta.md")
    page.click("#move-preview")
    page.wait_for_selector("#move-plan")
    # Someone else changes the note after the owner loaded it: the move is refused.
    site.hoard.writes.write(
        "moving/beta.md",
        note("Beta", "Beta changed meanwhile."),
        site.hoard.reading.read("moving/beta.md", caller=OWNER).revision,
        caller=OWNER,
    )
    before = _tree(site.vault)
    page.click("#move")
    page.wait_for_selector("#move-refused")
    assert "changed since you opened it" in page.inner_text("#move-refused")
    assert _tree(site.vault) == before
    # A move onto an existing note is refused already in the dry run, and on submit.
    page.goto(f"{site.url}/move/moving/beta.md?to=moving/gamma.md")
    assert "exists" in page.inner_text("#move-refused")
    page.goto(f"{site.url}/move/moving/beta.md?to=moving/epsilon.md")
    page.wait_for_selector("#move-plan")
    _write(site, "moving/epsilon.md", note("Epsilon", "Here first."))
    before = _tree(site.vault)
    page.click("#move")
    page.wait_for_selector("#move-refused")
    assert "exists" in page.inner_text("#move-refused")
    assert _tree(site.vault) == before
    assert "Beta changed meanwhile." in (site.vault / "moving" / "beta.md").read_text("utf-8")
