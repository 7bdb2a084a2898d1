"""The attachment pages' query plan: the score ceiling bounds every page's real BM25, a
word on most pages is left out of a query of several words, and the budget keeps the
rarest words."""

from __future__ import annotations

import random
from pathlib import Path

from hoard.adapters.attachments.plan import count_cap, plan_pages
from hoard.adapters.attachments.store import AttachmentStore, FileRow
from hoard.core.attachments import Extracted
from hoard.core.ranking import RankingSettings

WORDS = ["river", "delta", "stone", "harbour", "lantern", "meadow", "quill", "axolotl"]


def filled_store(tmp_path: Path) -> AttachmentStore:
    """60 files of 1 to 4 pages; "river" on every page, "axolotl" on one, the others
    drawn at random with pages of very different lengths."""
    store = AttachmentStore(tmp_path / "attachments.db", "limits")
    store.open()
    rng = random.Random(7)
    for n in range(60):
        pages = []
        for _ in range(rng.randint(1, 4)):
            body = ["river"] + [rng.choice(WORDS[1:7]) for _ in range(rng.randint(1, 300))]
            pages.append(" ".join(body))
        if n == 17:
            pages.append("axolotl axolotl in the river")
        sha = f"{n:064x}"
        store.put_text(
            Extracted(sha256=sha, pages=tuple(pages), problem=None, detail="", truncated=False)
        )
        store.put_file(
            FileRow(
                path=f"papers/f{n}.txt",
                mtime_ns=1,
                size=1,
                sha256=sha,
                kind="text",
                problem=None,
                detail="",
            ),
            "papers",
        )
    return store


def test_no_page_scores_above_the_ceiling_of_its_query(tmp_path):
    store = filled_store(tmp_path)
    pages, ranking = store.page_count(), RankingSettings(common_share=1.0, posting_budget=0)
    cap = count_cap(ranking, pages)
    for query in (["river"], ["delta"], ["axolotl"], ["delta", "quill"], ["stone", "axolotl"]):
        groups = [[f'"{w}"'] for w in query]
        counts = [store.phrase_counts(g, cap) for g in groups]
        plan = plan_pages(groups, counts, pages, cap, ranking)
        hits = store.search(" OR ".join(f'"{w}"' for w in query), 100, None)

        assert hits and max(h.score for h in hits) < plan.ceiling


def test_a_rare_word_raises_the_ceiling_far_above_a_common_one(tmp_path):
    store = filled_store(tmp_path)
    pages, ranking = store.page_count(), RankingSettings()
    cap = count_cap(ranking, pages)

    def ceiling(word: str) -> float:
        groups = [[f'"{word}"']]
        counts = [store.phrase_counts(groups[0], cap)]
        return plan_pages(groups, counts, pages, cap, ranking).ceiling

    assert ceiling("axolotl") > 10 * ceiling("river")
    assert ceiling("unheard") == 0.0


def test_a_word_on_most_pages_is_left_out_of_a_query_of_several_words():
    ranking = RankingSettings(common_share=0.4, posting_budget=0)
    groups = [['"river"'], ['"axolotl"'], ['"old river"']]

    plan = plan_pages(groups, [[90], [1], [80]], 100, 100, ranking)

    assert plan.kept == [1, 2]  # a phrase is never common
    assert plan_pages(groups[:1], [[90]], 100, 100, ranking).kept == [0]


def test_the_budget_keeps_the_rarest_words_that_fit():
    ranking = RankingSettings(common_share=1.0, posting_budget=100)
    groups = [['"a"'], ['"b"'], ['"c"', '"cc"']]

    plan = plan_pages(groups, [[101], [30], [20, 40]], 1000, 101, ranking)

    assert plan.kept == [1, 2]
