"""A rare word as typed: the few notes holding it exactly rise above the notes that only
hold its stem family, unless the family names a note."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.config import Config, SearchConfig
from hoard.core.policy import OWNER

FILLER = "Some notes on the build, the release and the tools we use every day at work. " * 3


def _vault(root: Path, titled: bool) -> Path:
    root.mkdir()
    for i in range(9):
        body = f"The structure of part {i}. Its structure is plain; structures repeat."
        (root / f"part-{i}.md").write_text(f"---\ntitle: Part {i}\n---\n{body}\n")
    (root / "bridge.md").write_text(
        f"---\ntitle: Bridge\n---\n{FILLER}The bridge needs a structural survey.\n"
    )
    if titled:
        (root / "structure.md").write_text("---\ntitle: Structure\n---\nHow parts fit.\n")
    return root


def _config(exact_weight: float) -> Config:
    s = SearchConfig()
    ranking = dataclasses.replace(s.ranking, exact_weight=exact_weight)
    return Config(search=dataclasses.replace(s, ranking=ranking))


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Path]:
    yield _vault(tmp_path / "vault", titled=False)


def _paths(root: Path, state: Path, query: str, exact_weight: float = 3.0) -> list[str]:
    with Hoard(root, state, config=_config(exact_weight)) as h:
        return [r.path for r in h.searching.search(query, limit=10, caller=OWNER).results]


def test_a_rare_typed_form_finds_the_note_holding_it_first(vault: Path, tmp_path: Path) -> None:
    assert _paths(vault, tmp_path / "on", "structural")[0] == "bridge.md"


def test_without_the_exact_form_rule_stemming_buries_that_note(vault: Path, tmp_path: Path) -> None:
    assert _paths(vault, tmp_path / "off", "structural", exact_weight=0.0)[0] != "bridge.md"


def test_a_family_that_names_a_note_keeps_that_note_first(tmp_path: Path) -> None:
    root = _vault(tmp_path / "titled", titled=True)
    assert _paths(root, tmp_path / "state", "structural")[0] == "structure.md"


def test_a_longer_question_is_left_to_plain_bm25(vault: Path, tmp_path: Path) -> None:
    query = "structural part plain release"
    on = _paths(vault, tmp_path / "on", query)
    off = _paths(vault, tmp_path / "off", query, exact_weight=0.0)
    assert on == off
