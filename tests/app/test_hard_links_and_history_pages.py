"""Hard links and paged history (issue 18, item 6): ``hoard check`` flags a note whose file
has more than one link, ``refuse_hard_links`` keeps such notes out entirely, and
``vault_history`` says when there are older events and how to get them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import PathRejected
from hoard.core.policy import OWNER
from tests.helpers import note_text as note


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "tech").mkdir(parents=True)
    (root / "tech/plain.md").write_text(note("Plain", "an ordinary wombat"), encoding="utf-8")
    outside = tmp_path / "outside-secret.md"
    outside.write_text(note("Outside", "a secret pangolin from elsewhere"), encoding="utf-8")
    os.link(outside, root / "tech/linked.md")
    return root


def test_check_flags_a_note_with_more_than_one_hard_link(vault: Path, tmp_path: Path) -> None:
    with Hoard(vault, tmp_path / "state") as h:
        flagged = [
            (v.path, v.rule) for v in h.maintenance.check().violations if v.rule == "hard_link"
        ]

    assert flagged == [("tech/linked.md", "hard_link")]


def test_refuse_hard_links_keeps_them_out_of_reads_and_search(vault: Path, tmp_path: Path) -> None:
    (vault / "hoard.toml").write_text("[limits]\nrefuse_hard_links = true\n", encoding="utf-8")
    with Hoard(vault, tmp_path / "state") as h:
        with pytest.raises(PathRejected):
            h.reading.read("tech/linked.md", caller=OWNER)
        assert h.searching.search("pangolin", caller=OWNER).results == []
        assert [r.path for r in h.searching.search("wombat", caller=OWNER).results] == [
            "tech/plain.md"
        ]


def test_history_pages_its_events_with_a_way_to_the_older_ones(vault: Path, tmp_path: Path) -> None:
    with Hoard(vault, tmp_path / "state") as h:
        for i in range(520):
            h.write_core.records.event("vault_write", "agent", "tech/plain.md", None, None, f"e{i}")
        newest = h.writes.retirement.history("tech/plain.md", caller=OWNER)
        older = h.writes.retirement.history(
            "tech/plain.md", caller=OWNER, offset=newest.next_offset or 0
        )

    assert newest.truncated and newest.next_offset == 500
    assert [e.decision for e in newest.events] == [f"e{i}" for i in range(20, 520)]
    assert not older.truncated and older.next_offset is None
    assert [e.decision for e in older.events] == [f"e{i}" for i in range(20)]
