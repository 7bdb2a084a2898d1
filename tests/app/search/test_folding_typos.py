"""Diacritic folding both ways, typo tolerance scaled to word length, prefix matching."""

from __future__ import annotations

import pytest

from hoard.core.policy import OWNER


@pytest.fixture
def background(write_note):
    for i in range(10):
        write_note(f"misc/bg{i}.md", f"Background {i}", f"unrelated text number {i}")


def _paths(hoard, query: str) -> list[str]:
    return [h.path for h in hoard.searching.search(query, caller=OWNER).results]


@pytest.mark.parametrize(
    ("written", "query"),
    [
        ("Dnešní úkol je hotový", "ukol"),
        ("Dnesni ukol je hotovy", "úkol"),
        ("Weekend in Århus with friends", "aarhus"),
        ("Weekend in Aarhus with friends", "Århus"),
        ("Weekend in Århus with friends", "århus"),
        ("We ate smørrebrød for lunch", "smoerrebroed"),
        ("We ate smoerrebroed for lunch", "smørrebrød"),
        ("We ate Smørrebrød for lunch", "SMØRREBRØD"),
        ("Die Hauptstraße ist lang", "hauptstrasse"),
        ("Die Hauptstrasse ist lang", "Hauptstraße"),
        ("Æbleskiver til jul", "aebleskiver"),
        ("Aebleskiver til jul", "æbleskiver"),
        ("Café au lait", "cafe"),
    ],
)
def test_folding_finds_the_other_spelling(write_note, open_hoard, background, written, query):
    write_note("life/target.md", "Target", written)

    assert _paths(open_hoard(), query) == ["life/target.md"]


def test_folding_works_in_titles_too(write_note, open_hoard, background):
    write_note("life/trip.md", "Weekend in Århus", "a short trip")

    hit = open_hoard().searching.search("aarhus", caller=OWNER).results[0]

    assert hit.path == "life/trip.md"
    assert hit.title == "Weekend in Århus"


def test_a_misspelled_long_word_finds_the_note(write_note, open_hoard, background):
    write_note("tech/kube.md", "Cluster", "the kubernetes upgrade went fine")
    h = open_hoard()

    assert _paths(h, "kubernets") == ["tech/kube.md"]
    assert _paths(h, "kubernetis") == ["tech/kube.md"]
    assert _paths(h, "kuberentes") == ["tech/kube.md"]  # a transposition is one edit


def test_a_typo_correction_is_reported_as_a_warning(write_note, open_hoard, background):
    write_note("tech/zoo.md", "Zoo", "a zebra with stripes")

    result = open_hoard().searching.search("zebrq", caller=OWNER)

    assert [h.path for h in result.results] == ["tech/zoo.md"]
    kinds = [w["kind"] for w in result.warnings]
    assert kinds == ["typo_corrections"]
    assert result.warnings[0]["corrections"] == {"zebrq": ["zebra"]}
    assert result.warnings[0]["message"]


def test_an_exact_match_carries_no_typo_warning(write_note, open_hoard, background):
    write_note("tech/zoo.md", "Zoo", "a zebra with stripes")

    assert open_hoard().searching.search("zebra", caller=OWNER).warnings == []


@pytest.mark.parametrize(
    ("word", "query", "found"),
    [
        ("zebra", "zebrq", True),  # 5 letters, 1 edit
        ("zebra", "zqbrx", False),  # 5 letters, 2 edits
        ("giraffe", "girafke", True),  # 7 letters, 1 edit
        ("giraffe", "gxraffx", False),  # 7 letters, 2 edits
        ("elephants", "elxphanxs", True),  # 9 letters, 2 edits
        ("marmalade", "mxrmalxde", True),  # 9 letters, 2 edits
        ("configuration", "configuraton", True),  # 13 letters, 1 edit
        ("marmalade", "mxrmxlxde", False),  # 9 letters, 3 edits
        ("wolf", "wolx", True),  # 4 letters, 1 edit
        ("cat", "cot", False),  # under 4 letters: no correction
        ("owl", "ow1", False),
    ],
)
def test_typo_budget_scales_with_word_length(
    write_note, open_hoard, background, word, query, found
):
    write_note("tech/animal.md", "Animal", f"a note about the {word} at the zoo")

    paths = _paths(open_hoard(), query)

    assert paths == (["tech/animal.md"] if found else [])


def test_a_typo_only_hit_ranks_below_an_exact_hit(write_note, open_hoard, background):
    write_note("zoo/zebra.md", "Stripes", "a zebra at the zoo")
    write_note("zoo/giraffe.md", "Stripes", "a giraffe at the zoo")

    result = open_hoard().searching.search("zebra giraffx", caller=OWNER)

    assert [h.path for h in result.results] == ["zoo/zebra.md", "zoo/giraffe.md"]
    assert result.results[0].score > result.results[1].score
    assert "giraffx" in result.warnings[0]["corrections"]


def test_typo_tolerance_can_be_switched_off(vault, write_note, open_hoard, background):
    (vault / "hoard.toml").write_text("[search]\ntypo = false\n", encoding="utf-8")
    write_note("tech/zoo.md", "Zoo", "a zebra with stripes")

    result = open_hoard().searching.search("zebrq", caller=OWNER)

    assert result.results == []
    assert result.warnings == []


def test_a_prefix_of_four_letters_finds_the_longer_word(write_note, open_hoard, background):
    write_note("tech/kube.md", "Cluster", "the kubernetes upgrade went fine")

    assert _paths(open_hoard(), "kube") == ["tech/kube.md"]


def test_a_prefix_of_three_letters_does_not(write_note, open_hoard, background):
    write_note("tech/kube.md", "Cluster", "the kubernetes upgrade went fine")

    assert _paths(open_hoard(), "kub") == []


def test_a_prefix_of_a_folded_word_finds_it(write_note, open_hoard, background):
    write_note("life/lunch.md", "Lunch", "we ate smørrebrød")

    assert _paths(open_hoard(), "smoerre") == ["life/lunch.md"]


def test_a_typo_only_hit_never_outranks_a_note_matching_through_stemming(
    write_note, open_hoard, background
):
    # "cats" matches "cat" exactly once both are stemmed; "bats" is only one edit away.
    filler = " ".join(f"w{i}" for i in range(150))
    write_note("misc/cat.md", "Pets", f"{filler} my cat {filler}")
    write_note("misc/bats.md", "Bats", "bats bats in the attic")

    result = open_hoard().searching.search("cats", caller=OWNER)

    assert result.results[0].path == "misc/cat.md"


@pytest.mark.parametrize(
    ("written", "query"),
    [
        ("a zebra at the zoo", "zebras"),
        ("a weekend in Århus", "aarhus"),
        ("we ate smørrebrød", "smorrebrod"),
    ],
)
def test_a_word_matched_through_stemming_or_folding_carries_no_typo_warning(
    write_note, open_hoard, background, written, query
):
    write_note("life/target.md", "Target", written)

    result = open_hoard().searching.search(query, caller=OWNER)

    assert [h.path for h in result.results] == ["life/target.md"]
    assert result.warnings == [], result.warnings
