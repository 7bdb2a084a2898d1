"""Golden ranking tests: field weights, folder multipliers, the diversity cap, scores,
snippets and the frontmatter observation."""

from __future__ import annotations

import pytest

from hoard.core.config import Config, SearchConfig
from hoard.core.policy import OWNER
from hoard.core.ranking import RankingSettings

FILLER = " ".join(f"filler{i}" for i in range(120))


@pytest.fixture
def background(write_note):
    """Unrelated notes, so the query words are rare (BM25's IDF is only meaningful when a
    word is in fewer than half of the notes)."""

    def write(folder: str = "misc", n: int = 12) -> None:
        for i in range(n):
            prefix = f"{folder}/" if folder else ""
            write_note(f"{prefix}bg{i}.md", f"Background {i}", f"unrelated text number {i}")

    return write


def test_a_title_match_beats_an_otherwise_equal_body_only_match(write_note, open_hoard, background):
    background()
    write_note("tech/a.md", "Quokka", "a note about the quokka on the island")
    write_note("tech/b.md", "Wombat", "a note about the quokka on the island")

    result = open_hoard().searching.search("quokka", caller=OWNER)

    assert [h.path for h in result.results] == ["tech/a.md", "tech/b.md"]
    assert result.results[0].score > result.results[1].score


def test_a_title_only_match_beats_a_body_only_match(write_note, open_hoard, background):
    background()
    write_note("tech/a.md", "Quokka", "a note about a small island animal")
    write_note("tech/b.md", "Island animal", "a note about a small quokka animal")

    result = open_hoard().searching.search("quokka", caller=OWNER)

    assert [h.path for h in result.results] == ["tech/a.md", "tech/b.md"]


@pytest.mark.parametrize("phrase_weight", [0.2, 0.0])
def test_words_next_to_each_other_as_in_the_query_rank_above_the_same_words_apart(
    write_note, open_hoard, background, vault, phrase_weight
):
    background()
    config = Config(search=SearchConfig(ranking=RankingSettings(phrase_weight=phrase_weight)))
    write_note("tech/a.md", "Note a", "quokka wombat filler words here and then island")
    write_note("tech/b.md", "Note b", "quokka island filler words here and then wombat")

    paths = [
        h.path
        for h in open_hoard(config=config).searching.search("quokka island", caller=OWNER).results
    ]

    # Equal BM25 ties break by path, so only the proximity bonus puts b first.
    assert paths[:2] == (
        ["tech/b.md", "tech/a.md"] if phrase_weight else ["tech/a.md", "tech/b.md"]
    )


@pytest.mark.parametrize(
    ("downranked", "peer", "multiplier"),
    [
        ("dreams/quokka.md", "tech/quokka.md", 0.35),
        ("logs/quokka.md", "tech/quokka.md", 0.35),
        ("archives/quokka.md", "tech/quokka.md", 0.7),
        ("tech/2026-03-20-session-log.md", "tech/2026-03-20-meeting-log.md", 0.6),
        ("work/session-logs/day.md", "work/meeting-logs/day.md", 0.6),
    ],
)
def test_generated_folders_rank_below_an_equal_note(
    write_note, open_hoard, background, downranked, peer, multiplier
):
    background()
    body = "we met a quokka on rottnest island"
    write_note(downranked, "Island day", body)
    write_note(peer, "Island day", body)

    result = open_hoard().searching.search("quokka", caller=OWNER)

    assert [h.path for h in result.results] == [peer, downranked]
    top, low = result.results
    assert low.score == pytest.approx(top.score * multiplier, rel=1e-3)


def test_a_note_under_a_hundred_down_ranked_ones_by_bm25_still_ranks_by_its_full_score(
    write_note, open_hoard, background
):
    background()
    for i in range(120):  # more than a ranking query first takes by BM25 alone
        write_note(f"logs/day-{i:03d}.md", f"Day {i}", "quokka quokka quokka")
    write_note("tech/island.md", "Island", "we met a quokka on rottnest island")

    results = open_hoard().searching.search("quokka", caller=OWNER).results

    assert results[0].path == "tech/island.md"
    assert results[0].score > results[1].score


def test_the_diversity_cap_moves_extra_hits_from_one_folder_below_other_folders(
    write_note, open_hoard, background
):
    background(n=20)
    for i in range(5):
        write_note(f"strong/s{i}.md", f"Quokka {i}", f"quokka quokka note {i}")
    for i in range(2):
        write_note(f"weak/w{i}.md", f"Other {i}", f"{FILLER} quokka {FILLER}")
    h = open_hoard()

    page = h.searching.search("quokka", limit=5, caller=OWNER).results
    everything = h.searching.search("quokka", limit=10, caller=OWNER).results

    assert [r.folder for r in page] == ["strong"] * 3 + ["weak"] * 2
    strong = [r.score for r in everything if r.folder == "strong"]
    weak = [r.score for r in everything if r.folder == "weak"]
    assert min(strong) > max(weak)
    assert [r.folder for r in everything] == ["strong"] * 3 + ["weak"] * 2 + ["strong"] * 2
    assert len({r.path for r in everything}) == 7


def test_a_page_still_fills_to_limit_in_a_flat_vault(write_note, open_hoard, background):
    background(folder="")
    for i in range(8):
        write_note(f"n{i}.md", f"Note {i}", "quokka " * (i + 1))
    h = open_hoard()

    assert len(h.searching.search("quokka", limit=5, caller=OWNER).results) == 5
    assert len(h.searching.search("quokka", limit=8, caller=OWNER).results) == 8


def test_a_page_fills_to_limit_when_all_hits_share_one_folder(write_note, open_hoard):
    write_note("life/other.md", "Other", "nothing relevant")
    for i in range(8):
        write_note(f"tech/n{i}.md", f"Note {i}", "quokka " * (i + 1))

    assert len(open_hoard().searching.search("quokka", limit=6, caller=OWNER).results) == 6


def test_scores_are_positive_and_sorted_descending_without_a_cap(
    write_note, open_hoard, background
):
    background()
    for i in range(6):
        write_note(f"f{i}/n.md", f"Note {i}", f"quokka {'word ' * (i * 10)}")

    results = open_hoard().searching.search("quokka", caller=OWNER).results

    scores = [r.score for r in results]
    assert len(scores) == 6
    assert all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_the_snippet_is_original_text_around_the_match(write_note, open_hoard):
    write_note("life/lunch.md", "Lunch", f"{FILLER} we ate Smørrebrød at noon {FILLER}")

    hit = open_hoard().searching.search("smørrebrød", caller=OWNER).results[0]

    assert "Smørrebrød" in hit.snippet
    assert "we ate Smørrebrød at noon" in hit.snippet


def test_a_folded_query_shows_the_original_spelling_in_the_snippet(write_note, open_hoard):
    write_note("life/lunch.md", "Lunch", f"{FILLER} we ate Smørrebrød at noon {FILLER}")

    hit = open_hoard().searching.search("smoerrebroed", caller=OWNER).results[0]

    assert hit.path == "life/lunch.md"
    assert "Smørrebrød" in hit.snippet, hit.snippet


def test_a_short_folded_note_shows_its_original_spelling(write_note, open_hoard):
    write_note("life/lunch.md", "Smørrebrød", "open sandwiches: smørrebrød with herring")

    hit = open_hoard().searching.search("smoerrebroed", caller=OWNER).results[0]

    assert hit.title == "Smørrebrød"
    assert "smørrebrød" in hit.snippet
    assert "smoerrebroed" not in hit.snippet


def test_the_frontmatter_observation_holds_allowlisted_keys_only(write_note, open_hoard):
    write_note(
        "tech/a.md",
        "Quokka",
        "quokka",
        extra="secret_token: hunter2\naliases: [quokka-note]\nnested: {a: 1}\n",
    )

    fm = open_hoard().searching.search("quokka", caller=OWNER).results[0].frontmatter

    assert fm is not None
    assert set(fm) <= set(SearchConfig().frontmatter_keys)
    assert "secret_token" not in fm
    assert "nested" not in fm
    assert fm["title"] == "Quokka"
    assert fm["tags"] == ["alpha", "beta"]
    assert fm["updated"] == "2026-03-01"
    assert fm["aliases"] == ["quokka-note"]


def test_a_result_names_its_folder_and_title(write_note, open_hoard):
    write_note("tech/homelab/a.md", "Quokka box", "quokka")
    write_note("root-note.md", "Quokka root", "quokka")

    hits = {h.path: h for h in open_hoard().searching.search("quokka", caller=OWNER).results}

    assert hits["tech/homelab/a.md"].folder == "tech/homelab"
    assert hits["tech/homelab/a.md"].title == "Quokka box"
    assert hits["root-note.md"].folder == ""


def test_scores_stay_positive_and_distinct_when_the_word_is_in_most_notes(write_note, open_hoard):
    # FTS5's bm25 gives a word found in more than half the notes a tiny IDF (1e-6): the
    # scores hoard reports must still be positive and keep the ranking visible.
    write_note("tech/b.md", "B", "quokka quokka " + "filler " * 20)
    write_note("tech/c.md", "C", "quokka " + "filler " * 50)
    write_note("dreams/a.md", "A", "quokka " + "filler " * 200)
    write_note("tech/d.md", "D", "nothing to see")

    results = open_hoard().searching.search("quokka", caller=OWNER).results

    assert [r.path for r in results] == ["tech/b.md", "tech/c.md", "dreams/a.md"]
    scores = [r.score for r in results]
    assert all(s > 0 for s in scores), scores
    assert scores[0] > scores[1] > scores[2], scores
