"""Typo fill (issue 19, fix a): close spellings of words that do match fill a page the exact
matches leave short, ranked below every exact match."""

from __future__ import annotations

from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER


@pytest.fixture
def hoard(tmp_path: Path) -> Hoard:
    root = tmp_path / "vault"
    root.mkdir()
    notes = {
        "fish/marlin.md": ("Marlin", "The blue marlin is a fast fish of warm seas."),
        "fish/tuna.md": ("Tuna", "A tuna is a fast fish too, caught for food."),
        "myth/merlin.md": ("Merlin", "The wizard of Arthurian legend."),
        "secret/merlyn.md": ("Merlin's tower", "Where merlin hid."),
    }
    for rel, (title, body) in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: {title}\n---\n{body}\n")
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n')
    h = Hoard(root, tmp_path / "state")
    yield h
    h.close()


def test_a_word_that_matches_also_finds_its_close_spelling_below_the_exact_hits(
    hoard: Hoard,
) -> None:
    r = hoard.searching.search("marlin", limit=10, caller=OWNER)
    paths = [h.path for h in r.results]
    assert paths[0] == "fish/marlin.md"
    assert "myth/merlin.md" in paths
    exact = next(h for h in r.results if h.path == "fish/marlin.md")
    fill = next(h for h in r.results if h.path == "myth/merlin.md")
    assert fill.score < exact.score
    assert r.warnings[-1]["kind"] == "typo_corrections"
    assert r.warnings[-1]["corrections"] == {"marlin": ["merlin"]}


def test_a_page_the_exact_matches_fill_gets_no_typo_hits(hoard: Hoard) -> None:
    r = hoard.searching.search("marlin", limit=1, caller=OWNER)
    assert [h.path for h in r.results] == ["fish/marlin.md"]
    assert r.warnings == []


def test_typo_fill_can_be_turned_off_with_typo_tolerance(tmp_path: Path, hoard: Hoard) -> None:
    (hoard.vault.root / "hoard.toml").write_text(
        'protected = ["secret/**"]\n[search]\ntypo = false\n'
    )
    with Hoard(hoard.vault.root, tmp_path / "other") as plain:
        assert [h.path for h in plain.searching.search("marlin", caller=OWNER).results] == [
            "fish/marlin.md"
        ]
