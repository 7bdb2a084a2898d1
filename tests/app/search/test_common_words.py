"""The common-word cut never empties an answer: a query left with too little without its
common words is searched with them, and the answer says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import make_vault, note_text


@pytest.fixture
def homes(tmp_path: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    notes = {
        f"log/day-{i:02d}.md": note_text(f"Day {i}", f"Worked from home on item {i}.")
        for i in range(60)
    }
    notes["tech/home-assistant.md"] = note_text(
        "Home Assistant", "Automations for the lights and the Hue bridge."
    )
    notes["tech/zigbee.md"] = note_text("Zigbee", "A mesh radio for lights and sensors.")
    return open_hoard(make_vault(tmp_path / "homes", notes), tmp_path / "homes-state")


def test_a_query_empty_without_its_common_word_is_searched_with_it_and_says_so(
    homes: Hoard,
) -> None:
    res = homes.searching.search("home ass", caller=OWNER)
    assert res.results[0].path == "tech/home-assistant.md"
    kept = [w for w in res.warnings if w["kind"] == "common_words_kept"]
    assert kept and kept[0]["words"] == ["home"]


def test_a_query_that_fills_its_page_without_the_common_word_keeps_it_out(
    homes: Hoard,
) -> None:
    res = homes.searching.search("home lights", limit=2, caller=OWNER)
    assert {r.path for r in res.results} == {"tech/home-assistant.md", "tech/zigbee.md"}
    assert not [w for w in res.warnings if w["kind"] == "common_words_kept"]
