"""Caps on the work one request may ask for (issue 18, item 4): query terms, links per
call (paged, with ``truncated`` and ``next_offset``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import BadQuery
from hoard.core.policy import OWNER
from tests.helpers import note_text as note


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    vault = tmp_path / "vault"
    (vault / "tech").mkdir(parents=True)
    (vault / "hoard.toml").write_text("[limits]\nlinks_max = 100\n", encoding="utf-8")
    links = " ".join(f"[[n{i}]]" for i in range(250))
    (vault / "tech/hub.md").write_text(note("Hub", f"pangolin {links}"), encoding="utf-8")
    for i in range(3):
        (vault / f"tech/n{i}.md").write_text(note(f"N{i}", "back to [[hub]]"), encoding="utf-8")
    with Hoard(vault, tmp_path / "state") as h:
        yield h


def test_an_fts_query_over_the_term_cap_is_a_bad_query_that_says_so(hoard: Hoard) -> None:
    query = " OR ".join(f"word{i}" for i in range(1000))

    with pytest.raises(BadQuery) as refused:
        hoard.searching.search(query, mode="fts", caller=OWNER)

    assert refused.value.details["terms"] == 1000
    assert refused.value.details["limit"] == 64


def test_an_fts_query_within_the_cap_runs(hoard: Hoard) -> None:
    query = " OR ".join(["pangolin"] + [f"word{i}" for i in range(60)])

    assert [r.path for r in hoard.searching.search(query, mode="fts", caller=OWNER).results] == [
        "tech/hub.md"
    ]


def test_a_long_natural_query_searches_its_first_words_and_warns(hoard: Hoard) -> None:
    result = hoard.searching.search(
        "pangolin " + " ".join(f"word{i}" for i in range(2000)), caller=OWNER
    )

    assert [r.path for r in result.results] == ["tech/hub.md"]
    assert [w["kind"] for w in result.warnings] == ["query_truncated"]


def test_links_come_in_pages_with_a_way_to_the_next(hoard: Hoard) -> None:
    first = hoard.reading.links("tech/hub.md", caller=OWNER)
    second = hoard.reading.links("tech/hub.md", offset=first.next_offset or 0, caller=OWNER)
    last = hoard.reading.links("tech/hub.md", offset=second.next_offset or 0, caller=OWNER)

    assert first.truncated and len(first.outgoing) == 100 and first.next_offset == 100
    assert second.truncated and second.next_offset == 200
    assert not last.truncated and last.next_offset is None and len(last.outgoing) == 50
    targets = [o.target for page in (first, second, last) for o in page.outgoing]
    assert targets == [f"n{i}" for i in range(250)]
    assert first.backlinks == ["tech/n0.md", "tech/n1.md", "tech/n2.md"]


def test_a_smaller_page_may_be_asked_for_but_never_a_larger_one(hoard: Hoard) -> None:
    assert len(hoard.reading.links("tech/hub.md", limit=7, caller=OWNER).outgoing) == 7
    assert len(hoard.reading.links("tech/hub.md", limit=10_000, caller=OWNER).outgoing) == 100
