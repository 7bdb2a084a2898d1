"""hoard.core.fold: spellings beyond SQLite's own diacritic folding."""

from __future__ import annotations

import pytest

from hoard.core.fold import alt_text, fold_variants, needs_fold


@pytest.mark.parametrize(
    ("word", "must_include"),
    [
        ("smørrebrød", ["smoerrebroed", "smorrebrod"]),
        ("Smørrebrød", ["smoerrebroed", "smorrebrod"]),
        ("Århus", ["aarhus"]),
        ("århus", ["aarhus"]),
        ("Ærø", ["aeroe", "aero"]),
        ("straße", ["strasse"]),
        ("Łódź", ["lódź"]),
        ("þing", ["thing"]),
    ],
)
def test_special_letters_fold_to_what_people_type(word: str, must_include: list[str]) -> None:
    variants = fold_variants(word)
    for v in must_include:
        assert v in variants
    assert len(variants) == len(set(variants))
    assert word.lower() not in variants


@pytest.mark.parametrize("word", ["bridge", "Hue", "2026", "", "úkol", "café", "naïve", "日本"])
def test_words_sqlite_already_folds_get_no_variants(word: str) -> None:
    assert fold_variants(word) == []
    assert not needs_fold(word)


def test_alt_text_holds_every_variant_once() -> None:
    assert alt_text(["smørrebrød", "i", "Århus", "smørrebrød"]) == (
        "smoerrebroed smorrebrod aarhus"
    )
    assert alt_text(["plain", "words"]) == ""
