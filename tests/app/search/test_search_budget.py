"""The posting budget and the common-word rule (``RankingSettings.posting_budget``,
``RankingSettings.common_share``): which words of a query are searched on a vault too large to score
every note that holds a common word."""

from __future__ import annotations

from hoard.core.config import Config, SearchConfig
from hoard.core.policy import OWNER
from hoard.core.ranking import RankingSettings


def _corrections(result) -> dict[str, list[str]]:
    found = [w for w in result.warnings if w["kind"] == "typo_corrections"]
    return found[0]["corrections"] if found else {}


def _config(budget: int, common_share: float = 1.0) -> Config:
    ranking = RankingSettings(posting_budget=budget, common_share=common_share)
    return Config(search=SearchConfig(ranking=ranking))


def _lanterns_and_quokkas(write_note, lanterns: int = 12, others: int = 6) -> None:
    """``lanterns`` notes hold "lantern", 2 hold "quokka" (one of them both), ``others``
    hold neither."""
    for i in range(lanterns):
        write_note(f"tech/lantern-{i:02d}.md", f"Note {i}", "a brass lantern on the shelf")
    write_note("tech/quokka-a.md", "Island visit", "a quokka smiled at the camera")
    write_note("tech/quokka-b.md", "Ferry trip", "a quokka near a lantern")
    for i in range(others):
        write_note(f"life/other-{i}.md", f"Other {i}", "nothing of interest here")


def test_a_word_in_more_notes_than_the_budget_is_left_out_when_rarer_words_fill_it(
    vault, write_note, open_hoard
):
    cfg = _config(budget=6)
    _lanterns_and_quokkas(write_note)

    paths = {
        r.path
        for r in open_hoard(config=cfg).searching.search("quokka lantern", caller=OWNER).results
    }

    assert paths == {"tech/quokka-a.md", "tech/quokka-b.md"}


def test_every_word_is_searched_when_the_budget_is_off(vault, write_note, open_hoard):
    cfg = _config(budget=0)
    _lanterns_and_quokkas(write_note)

    results = open_hoard(config=cfg).searching.search("quokka lantern", caller=OWNER).results

    assert results[0].path == "tech/quokka-b.md"  # both words
    assert len(results) == 10
    assert "tech/lantern-00.md" in {
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("quokka lantern", limit=20, caller=OWNER)
        .results
    }


def test_a_vault_of_no_more_notes_than_the_budget_searches_every_word(
    vault, write_note, open_hoard
):
    cfg = _config(budget=20)  # the vault holds 20 notes
    _lanterns_and_quokkas(write_note)

    paths = {
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("quokka lantern", limit=20, caller=OWNER)
        .results
    }

    assert len(paths) == 14
    assert "tech/lantern-05.md" in paths


def _lanterns_and_harbors(write_note) -> None:
    """8 notes hold "lantern", 8 "harbor", 3 of them both."""
    for i in range(5):
        write_note(f"tech/lantern-{i}.md", f"Note L{i}", "a brass lantern on the shelf")
        write_note(f"life/harbor-{i}.md", f"Note H{i}", "boats in the harbor at dawn")
    for i in range(3):
        write_note(f"projects/both-{i}.md", f"Note B{i}", "a lantern lit the harbor")
    for i in range(4):
        write_note(f"daily/other-{i}.md", f"Other {i}", "nothing of interest here")


def test_when_every_word_is_over_the_budget_notes_holding_all_of_them_are_found(
    vault, write_note, open_hoard
):
    cfg = _config(budget=4)
    _lanterns_and_harbors(write_note)

    paths = {
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("lantern harbor", limit=3, caller=OWNER)
        .results
    }

    assert paths == {"projects/both-0.md", "projects/both-1.md", "projects/both-2.md"}


def test_a_page_that_notes_holding_every_word_cannot_fill_is_filled_from_any_word(
    vault, write_note, open_hoard
):
    cfg = _config(budget=4)
    _lanterns_and_harbors(write_note)

    results = (
        open_hoard(config=cfg).searching.search("lantern harbor", limit=10, caller=OWNER).results
    )

    assert len(results) == 10
    assert {r.path for r in results[:3]} == {
        "projects/both-0.md",
        "projects/both-1.md",
        "projects/both-2.md",
    }


def test_a_typo_correction_matching_more_notes_than_the_budget_leaves_is_not_searched(
    vault, write_note, open_hoard
):
    cfg = _config(budget=6)
    _lanterns_and_quokkas(write_note)

    held = open_hoard(config=cfg).searching.search("quokka lantren", caller=OWNER)

    assert {r.path for r in held.results} == {"tech/quokka-a.md", "tech/quokka-b.md"}
    assert _corrections(held) == {}


def test_a_typo_correction_is_searched_when_the_budget_is_off(vault, write_note, open_hoard):
    cfg = _config(budget=0)
    _lanterns_and_quokkas(write_note)

    found = open_hoard(config=cfg).searching.search("quokka lantren", limit=20, caller=OWNER)

    assert _corrections(found) == {"lantren": ["lantern"]}
    assert "tech/lantern-00.md" in {r.path for r in found.results}


def _common_lanterns(write_note) -> None:
    """52 notes: "lantern" in 31 of them (60 %), "quokka" in 2; the rule needs 50 notes."""
    _lanterns_and_quokkas(write_note, lanterns=30, others=20)


def test_a_word_in_more_than_the_common_share_of_notes_is_left_out_of_a_longer_query(
    vault, write_note, open_hoard
):
    cfg = _config(budget=0, common_share=0.4)
    _common_lanterns(write_note)

    # (a page the query fills without the common word; a short one is searched with it)
    paths = {
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("quokka lantern", limit=2, caller=OWNER)
        .results
    }

    assert paths == {"tech/quokka-a.md", "tech/quokka-b.md"}


def test_a_common_word_alone_is_still_searched(vault, write_note, open_hoard):
    cfg = _config(budget=0, common_share=0.4)
    _common_lanterns(write_note)

    assert (
        len(open_hoard(config=cfg).searching.search("lantern", limit=50, caller=OWNER).results)
        == 31
    )


def test_a_common_phrase_is_never_left_out(vault, write_note, open_hoard):
    cfg = _config(budget=0, common_share=0.4)
    _common_lanterns(write_note)

    results = (
        open_hoard(config=cfg)
        .searching.search("quokka brass-lantern", limit=50, caller=OWNER)
        .results
    )

    assert "tech/lantern-00.md" in {r.path for r in results}


def test_every_word_is_kept_when_the_common_share_is_1(vault, write_note, open_hoard):
    cfg = _config(budget=0, common_share=1.0)
    _common_lanterns(write_note)

    assert (
        len(
            open_hoard(config=cfg)
            .searching.search("quokka lantern", limit=50, caller=OWNER)
            .results
        )
        == 32
    )


def test_a_note_holding_a_left_out_word_too_ranks_above_one_holding_only_the_rare_word(
    vault, write_note, open_hoard
):
    cfg = _config(budget=6)
    for i in range(12):
        write_note(f"tech/lantern-{i:02d}.md", f"Note {i}", "a brass lantern on the shelf")
    write_note("tech/quokka-short.md", "Island visit", "quokka")
    write_note("tech/quokka-lantern.md", "Ferry trip", "a quokka near a brass lantern on a shelf")
    for i in range(26):  # (BM25 weighs a word in over half the notes at nothing)
        write_note(f"life/other-{i}.md", f"Other {i}", "nothing of interest here")

    results = open_hoard(config=cfg).searching.search("quokka lantern", caller=OWNER).results

    assert [r.path for r in results] == ["tech/quokka-lantern.md", "tech/quokka-short.md"]


def test_a_misspelt_word_over_the_budget_is_searched_through_its_correction(
    vault, write_note, open_hoard
):
    cfg = _config(budget=4)
    _lanterns_and_harbors(write_note)

    found = open_hoard(config=cfg).searching.search("lantern harbr", limit=3, caller=OWNER)

    assert {r.path for r in found.results} == {
        "projects/both-0.md",
        "projects/both-1.md",
        "projects/both-2.md",
    }
    assert _corrections(found) == {"harbr": ["harbor"]}


def _quokkas_and_marsupials(write_note) -> None:
    """Long quokka notes that all say "marsupial" (feedback would pick it up), notes that
    hold only "marsupial", 12 lantern notes (over a budget of 6) and filler."""
    prose = " ".join(f"word{i}" for i in range(40))
    for i in range(4):
        write_note(
            f"tech/quokka-{i}.md",
            f"Quokka {i}",
            f"quokka island smiles camera beach marsupial marsupial marsupial {prose}",
        )
    # (feedback takes words in at most 10 % of the notes: 5 of 56 here)
    write_note("life/marsupial-0.md", "Pouch", f"a marsupial pouch {prose}")
    for i in range(12):
        write_note(f"daily/lantern-{i:02d}.md", f"Note {i}", "a brass lantern on the shelf")
    for i in range(39):
        write_note(f"projects/other-{i:02d}.md", f"Other {i}", "nothing of interest here")


QUERY = "quokka island smiles camera beach lantern"


def test_a_long_query_within_the_budget_gets_feedback_words(vault, write_note, open_hoard):
    cfg = _config(budget=0)
    _quokkas_and_marsupials(write_note)

    paths = {
        r.path
        for r in open_hoard(config=cfg).searching.search(QUERY, limit=30, caller=OWNER).results
    }

    assert "life/marsupial-0.md" in paths  # found only through the feedback word


def test_a_long_query_the_budget_cut_gets_no_feedback_words(vault, write_note, open_hoard):
    cfg = _config(budget=20)  # the five quokka words fit (5 x 4 notes); "lantern" does not
    _quokkas_and_marsupials(write_note)

    paths = {
        r.path
        for r in open_hoard(config=cfg).searching.search(QUERY, limit=30, caller=OWNER).results
    }

    assert {p for p in paths if p.startswith("tech/quokka-")} == {
        f"tech/quokka-{i}.md" for i in range(4)
    }
    assert not any(p.startswith(("life/marsupial-", "daily/lantern-")) for p in paths)


def test_a_words_count_is_remembered_across_searches_only_until_the_index_changes(
    vault, write_note, open_hoard
):
    cfg = _config(budget=6)
    _lanterns_and_quokkas(write_note)
    h = open_hoard(config=cfg)
    first = {r.path for r in h.searching.search("quokka lantern", caller=OWNER).results}
    again = {r.path for r in h.searching.search("quokka lantern", caller=OWNER).results}
    for i in range(3, 12):  # 3 lantern notes left: both words fit the budget now
        (vault / f"tech/lantern-{i:02d}.md").unlink()
    h.index.sync()

    after = {r.path for r in h.searching.search("quokka lantern", caller=OWNER).results}

    assert first == again == {"tech/quokka-a.md", "tech/quokka-b.md"}
    assert after == {"tech/quokka-a.md", "tech/quokka-b.md"} | {
        f"tech/lantern-{i:02d}.md" for i in range(3)
    }
