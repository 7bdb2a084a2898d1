"""Snippets are cut from the original text around the densest stretch of query words."""

from __future__ import annotations

import pytest

from hoard.core.snippet import best_window, head, match_spans


def test_the_window_holds_the_most_distinct_query_words() -> None:
    text = "alpha " * 200 + "the hue bridge firmware update went fine " + "omega " * 200

    snippet = best_window(text, ["hue", "firmware"], 80)

    assert "hue bridge firmware" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")


def test_a_word_is_matched_by_its_stem_like_head() -> None:
    assert head("verification") == "verificat"
    assert "verifications" in best_window(
        "x " * 100 + "two verifications " + "y " * 100, ["verification"], 60
    )


def test_a_match_far_into_a_large_note_is_found() -> None:
    text = "filler words here. " * 10_000 + "the lighthouse keeper" + " tail" * 100

    assert "lighthouse" in best_window(text, ["lighthouse"], 120)


def test_a_fold_variant_query_shows_the_original_spelling() -> None:
    text = "we ate " + "and talked " * 50 + "Smørrebrød at noon"

    assert "Smørrebrød" in best_window(text, ["smoerrebroed"], 60)


def test_without_a_match_the_snippet_is_the_start_of_the_text() -> None:
    assert best_window("first words of the note and more", ["zebra"], 15).startswith("first")


def test_white_space_is_collapsed() -> None:
    assert best_window("a\n\n  hue\tbridge", ["hue"], 40) == "a hue bridge"


WORDS = [
    "Århus",
    "Aarhus",
    "Arhus",
    "smørrebrød",
    "smoerrebroed",
    "smorrebrod",
    "Kjær",
    "Kjaer",
    "Kjar",
    "Nováková",
    "Novakova",
    "Příbram",
    "Pribram",
    "Dvořák",
    "Dvorak",
    "straße",
    "strasse",
    "cœur",
    "coeur",
    "Þór",
    "Thor",
    "Łódź",
    "Lodz",
    "København",
    "Koebenhavn",
    "Kobenhavn",
    "rødgrød",
    "roedgroed",
    "Ærø",
    "Aeroe",
    "Šťastný",
    "Stastny",
    "naïve",
    "naive",
    "Ångström",
]


def test_every_spelling_of_a_word_finds_every_other_spelling_in_the_text() -> None:
    from hoard.core.snippet import _find, _find_folded

    text = " ".join(f"filler {w} and" for w in WORDS)
    for term in WORDS:
        heads = [head(term)]
        slow = {start for start, _, _ in _find_folded(text, heads)}
        fast = {start for start, _, _ in _find(text, heads)}
        assert slow <= fast, (term, [text[p : p + 12] for p in slow - fast])


def test_a_diacritic_query_word_shows_its_ascii_spelling_and_back() -> None:
    ascii_text = "x " * 80 + "we cycled to Aarhus and Kobenhavn " + "y " * 80
    assert "Aarhus" in best_window(ascii_text, ["århus"], 60)
    assert "Kobenhavn" in best_window(ascii_text, ["københavn"], 60)
    danish = "x " * 80 + "Visiting Jana Nováková in Århus, Kjær said " + "y " * 80
    assert "Nováková in Århus" in best_window(danish, ["novakova", "aarhus"], 60)
    assert "Kjær" in best_window(danish, ["kjaer"], 40)


def test_match_offsets_are_the_original_texts_after_many_diacritics() -> None:
    text = "ěščřžýáíé " * 300 + "the lighthouse keeper Dvořák" + " tail" * 100
    snippet = best_window(text, ["dvorak", "lighthouse"], 60)
    assert "lighthouse keeper Dvořák" in snippet


@pytest.mark.parametrize(
    ("text", "term", "marked"),
    [
        ("每天晚上做一次数据库备份，保存七天。", "备份", "备份"),
        ("来週は東京へ行って、新幹線で大阪にも行きます。", "新幹線", "新幹線"),
        ("김치찌개는 돼지고기와 두부를 넣어 끓입니다.", "김치", "김치"),
        ("ภาษาไทยเป็นภาษาที่สวยงามมาก", "สวยงาม", "สวยงาม"),
    ],
)
def test_a_word_inside_an_unspaced_run_is_highlighted_alone(
    text: str, term: str, marked: str
) -> None:
    spans = match_spans(text, [term])
    assert [text[a:b] for a, b in spans] == [marked]
