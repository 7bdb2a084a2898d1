"""As-you-type search: the last word is a prefix from its first letter, the others whole
words, and notes whose title matches come first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import make_vault, note_text


@pytest.fixture
def home(tmp_path: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    notes = {
        f"log/day-{i:02d}.md": note_text(f"Day {i}", f"Worked from home; the hue of the sky {i}.")
        for i in range(60)
    }
    notes["tech/hue.md"] = note_text("Hue", "Philips lights on a Zigbee bridge.")
    notes["tech/home-assistant.md"] = note_text("Home Assistant", "Automations for the house.")
    notes["tech/svelte.md"] = note_text("Svelte", "A compiler for web pages.")
    notes["zh/db.md"] = note_text("数据库备份", "每天晚上备份。")
    return open_hoard(make_vault(tmp_path / "home", notes), tmp_path / "home-state")


def first(h: Hoard, q: str) -> str | None:
    res = h.searching.search(q, mode="typeahead", caller=OWNER)
    return res.results[0].path if res.results else None


@pytest.mark.parametrize(
    ("typed", "note"),
    [
        ("h", "tech/hue.md"),
        ("hu", "tech/hue.md"),
        ("sv", "tech/svelte.md"),
        ("svel", "tech/svelte.md"),
        ("svx", None),
        ("home ass", "tech/home-assistant.md"),
        ("home assistant", "tech/home-assistant.md"),
        ("数据", "zh/db.md"),
        ("备", "zh/db.md"),
    ],
)
def test_each_keystroke_finds_the_note_whose_title_starts_with_what_was_typed(
    home: Hoard, typed: str, note: str | None
) -> None:
    if note is None:
        assert home.searching.search(typed, mode="typeahead", caller=OWNER).results == []
    else:
        assert first(home, typed) == note


def test_notes_matching_only_in_the_body_come_after_title_matches(home: Hoard) -> None:
    paths = [
        r.path
        for r in home.searching.search("hue", mode="typeahead", limit=5, caller=OWNER).results
    ]
    assert paths[0] == "tech/hue.md"
    assert all(p.startswith("log/") for p in paths[1:]) and len(paths) == 5


def test_an_earlier_word_must_match_whole_not_as_a_prefix(home: Hoard) -> None:
    assert home.searching.search("hom assistant", mode="typeahead", caller=OWNER).results == []
