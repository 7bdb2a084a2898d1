"""Snippets are cut from the original text around the densest stretch of query words."""

from hoard.core.snippet import best_window, head


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
