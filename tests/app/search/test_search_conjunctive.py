"""The notes holding every word of a query whose every word is over the posting budget:
those with every word in the title or tags come first; the rest are weighed by BM25 when
there are no more of them than the budget, else filled in tiers (words close together,
then the most recently indexed) instead of weighing every one of them."""

from __future__ import annotations

from hoard.core.config import Config, SearchConfig
from hoard.core.policy import OWNER
from hoard.core.ranking import RankingSettings

TITLED = {"tech/lantern-harbor-0.md", "tech/lantern-harbor-1.md"}
NEAR = {f"projects/near-{i}.md" for i in range(3)}
FAR = {f"life/far-{i}.md" for i in range(3)}
HEAVY = "references/heavy.md"
FILLER = " ".join(["quiet"] * 20)
GAP = " ".join(["quiet"] * 11)


def _config(budget: int) -> Config:
    ranking = RankingSettings(posting_budget=budget, common_share=1.0)
    return Config(search=SearchConfig(ranking=ranking))


def _vault(write_note) -> None:
    """12 notes hold "lantern" and 12 "harbor"; 9 hold both: 2 in the title, 3 close
    together in the body, 3 far apart, and one far apart but four times each. 30 more
    notes hold neither (so BM25 gives the two words some weight)."""
    for i in range(2):
        write_note(f"tech/lantern-harbor-{i}.md", f"Lantern harbor guide {i}", "nothing else")
    for i in range(3):
        write_note(f"projects/near-{i}.md", f"Note N{i}", "the old lantern lit the harbor")
    for i in range(3):
        write_note(f"life/far-{i}.md", f"Note F{i}", f"a lantern {FILLER} the harbor")
    heavy = f"lantern lantern lantern lantern {GAP} harbor harbor harbor harbor"
    write_note(HEAVY, "Note H", heavy)
    for i in range(3):
        write_note(f"daily/lamp-{i}.md", f"Lamp {i}", "a brass lantern")
        write_note(f"logs/boat-{i}.md", f"Boat {i}", "boats in the harbor")
    for i in range(30):
        write_note(f"references/other-{i:02d}.md", f"Other {i}", "nothing of interest")


def test_notes_with_every_word_in_the_title_come_first_then_words_close_together(
    vault, write_note, open_hoard
):
    cfg = _config(budget=8)  # 12 notes per word, 9 with both: over the budget
    _vault(write_note)

    results = (
        open_hoard(config=cfg).searching.search("lantern harbor", limit=8, caller=OWNER).results
    )

    assert {r.path for r in results[:2]} == TITLED
    assert {r.path for r in results[2:5]} == NEAR
    assert {r.path for r in results[5:]} <= FAR | {HEAVY}
    assert len(results) == 8


def test_scores_still_descend_across_the_tiers(vault, write_note, open_hoard):
    cfg = _config(budget=8)
    _vault(write_note)

    scores = [
        r.score
        for r in open_hoard(config=cfg)
        .searching.search("lantern harbor", limit=8, caller=OWNER)
        .results
    ]

    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)


def test_within_the_budget_every_note_holding_all_words_is_weighed_by_bm25(
    vault, write_note, open_hoard
):
    cfg = _config(budget=9)  # 9 notes hold both words: within the budget
    _vault(write_note)

    paths = [
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("lantern harbor", limit=9, caller=OWNER)
        .results
    ]

    assert set(paths[:2]) == TITLED
    # Below them, four of each word outweigh one of each close together, by BM25.
    assert paths.index(HEAVY) < min(paths.index(p) for p in NEAR)


def test_over_the_budget_words_close_together_outrank_many_far_apart(vault, write_note, open_hoard):
    cfg = _config(budget=8)
    _vault(write_note)

    paths = [
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("lantern harbor", limit=8, caller=OWNER)
        .results
    ]

    assert set(paths[2:5]) == NEAR
    assert HEAVY not in paths[:5]


def test_a_title_changed_outside_hoard_leaves_the_title_tier(vault, write_note, open_hoard):
    cfg = _config(budget=8)
    _vault(write_note)
    h = open_hoard(config=cfg)
    assert {
        r.path for r in h.searching.search("lantern harbor", limit=8, caller=OWNER).results[:2]
    } == TITLED

    write_note("tech/lantern-harbor-0.md", "Quiet evening", "the lantern by the harbor")
    h.index.refresh_paths(["tech/lantern-harbor-0.md"])

    top = h.searching.search("lantern harbor", limit=8, caller=OWNER).results
    assert top[0].path == "tech/lantern-harbor-1.md"
    assert top[1].title == "Quiet evening"  # its words are close together now
    conn = h.index.reader()
    gone = conn.execute("SELECT rowid FROM titles WHERE titles MATCH 'guide'").fetchall()
    assert len(gone) == 1  # only the other note's title still says "guide"
    assert h.index.check(deep=True) is None  # FTS5 integrity checks included


LONG = "tech/lantern-harbor-almanac.md"


def test_a_long_note_named_by_the_words_comes_before_short_notes_holding_them(
    vault, write_note, open_hoard, state_dir
):
    _vault(write_note)
    write_note(LONG, "Lantern harbor almanac", " ".join(["quiet"] * 2000))
    cfg = _config(budget=0)  # no budget: BM25 of every note, long notes weigh less
    plain = [
        r.path
        for r in open_hoard(config=cfg)
        .searching.search("lantern harbor", limit=30, caller=OWNER)
        .results
    ]
    assert plain.index(LONG) > max(plain.index(p) for p in NEAR)

    cfg = _config(budget=10)  # each word in 13 notes, both in 10
    paths = [
        r.path
        for r in open_hoard(config=cfg, state=state_dir.parent / "s2")
        .searching.search("lantern harbor", limit=10, caller=OWNER)
        .results
    ]

    assert set(paths[:3]) == TITLED | {LONG}
