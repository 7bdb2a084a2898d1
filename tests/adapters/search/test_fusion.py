"""The blend of the lexical and semantic sides reads the rows of the notes found semantically
alone only when they could reach the page: the page must be the one that reading every row
gives, whatever the folder weights, the diversity cap, the page size and what the caller
may see."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hoard.adapters.search.fusion import blend_rows, page_floor, semantic_only_rows
from hoard.adapters.search.types import Scored, Scores, SearchRequest, diversify
from hoard.app.hoard import Hoard
from hoard.core.config import Config, SearchConfig
from hoard.core.semantic import blend
from tests.helpers import nearest_found

WEIGHTS = {"heavy/**": 2.5, "light/**": 0.35}
FOLDERS = ("heavy", "light", "plain", "other")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Hoard, list[str]]]:
    root = tmp_path_factory.mktemp("fusion") / "vault"
    rng = random.Random(5)
    paths = []
    for i in range(60):
        rel = f"{FOLDERS[i % 4]}/note-{i:02}.md"
        words = " ".join(rng.choice(["apple", "pear", "plum", "fig"]) for _ in range(1 + i % 7))
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: Note {i}\n---\n{words}\n")
        paths.append(rel)
    config = Config(search=SearchConfig(folder_weights=WEIGHTS))
    with Hoard(root, root.parent / "state", config=config) as hoard:
        yield hoard, paths


def lexical(conn: sqlite3.Connection, hoard: Hoard, req: SearchRequest) -> Scores:
    rows = hoard.searcher.queries.run(conn, "apple", req, 50)
    return {r.id: Scored(r.score, False, r) for r in rows}


def every_row(conn: sqlite3.Connection, scores: Scores, req: SearchRequest) -> Scores:
    """The blend as it would be with every semantic-only row read (the reference)."""
    semantic = req.semantic.result() if req.semantic else ()
    known = {v.row.path for v in scores.values()}
    rows = {r.path: r for r in semantic_only_rows(conn, [p for p, _ in semantic])}
    by_path = {v.row.path: k for k, v in scores.items()} | {
        p: r.id for p, r in rows.items() if p not in known
    }
    mult = {k: v.row.mult for k, v in scores.items()} | {r.id: r.mult for r in rows.values()}
    lex = {k: v.score / (v.row.mult or 1.0) for k, v in scores.items()}
    blended = blend(lex, {by_path[p]: c for p, c in semantic}, req.semantic_weight)
    out: Scores = {}
    for k, value in blended.items():
        old = scores.get(k)
        row = old.row if old else next(r for r in rows.values() if r.id == k)
        out[k] = Scored(value * mult[k], old.typo_only if old else False, row)
    return out


def page(scores: Scores, req: SearchRequest, cap: int) -> list[tuple[str, float]]:
    ranked = sorted(scores.values(), key=lambda v: (-v.score, v.row.path))
    seen = [v for v in ranked if req.visible is None or req.visible(v.row.path)]
    best = diversify(seen, cap, lambda v: v.row.folder)[: req.limit]
    return [(v.row.path, v.score) for v in best]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.data(),
    limit=st.integers(1, 25),
    cap=st.integers(1, 4),
    weight=st.sampled_from([0.0, 0.3, 0.8, 1.0]),
)
def test_the_page_is_the_one_every_semantic_row_read_would_give(
    index: tuple[Hoard, list[str]], data: st.DataObject, limit: int, cap: int, weight: float
) -> None:
    hoard, paths = index
    near = data.draw(st.lists(st.sampled_from(paths), unique=True, max_size=40))
    cosines = data.draw(st.lists(st.floats(-1, 1), min_size=len(near), max_size=len(near)))
    hidden = set(data.draw(st.lists(st.sampled_from(paths), unique=True, max_size=10)))
    semantic = tuple(sorted(zip(near, cosines, strict=True), key=lambda pc: -pc[1]))
    visible = (lambda p: p not in hidden) if hidden else None
    req = SearchRequest(
        query="apple",
        limit=limit,
        folder=None,
        mode="natural",
        visible=visible,
        filters=None,
        semantic=nearest_found(semantic),
        semantic_weight=weight,
    )
    search = dataclasses.replace(SearchConfig(), folder_weights=WEIGHTS, folder_cap=cap)
    conn = hoard.index.reader()
    scores = lexical(conn, hoard, req)
    got = blend_rows(conn, scores, req, search)
    assert page(got, req, cap) == page(every_row(conn, scores, req), req, cap)


def test_notes_found_semantically_alone_below_a_full_page_are_not_read(
    index: tuple[Hoard, list[str]],
) -> None:
    hoard, paths = index
    conn = hoard.index.reader()
    req = SearchRequest("apple", 3, semantic=nearest_found(()), semantic_weight=0.8)
    scores = lexical(conn, hoard, req)
    lexical_paths = {v.row.path for v in scores.values()}
    alone = [p for p in paths if p not in lexical_paths][:5]
    # The best semantic note alone scores at most 0.2 x 2.5 (the heaviest folder):
    # below the third lexical note, every note found only semantically stays unread.
    semantic = tuple((p, 0.9 - i / 10) for i, p in enumerate(alone))
    req = dataclasses.replace(req, semantic=nearest_found(semantic))
    search = dataclasses.replace(SearchConfig(), folder_weights=WEIGHTS)
    got = blend_rows(conn, scores, req, search)
    floor = page_floor(got.values(), req, search.folder_cap)
    assert floor is not None and floor > 0.2 * 2.5
    assert {v.row.path for v in got.values()} == lexical_paths


def test_a_page_the_candidates_leave_short_reads_every_semantic_note(
    index: tuple[Hoard, list[str]],
) -> None:
    hoard, paths = index
    conn = hoard.index.reader()
    req = SearchRequest(
        "apple", 500, semantic=nearest_found((p, 0.5) for p in paths), semantic_weight=0.8
    )
    got = blend_rows(conn, lexical(conn, hoard, req), req, SearchConfig())
    assert page_floor(got.values(), req, 3) is None
    assert {v.row.path for v in got.values()} == set(paths)


def test_a_note_found_semantically_alone_that_the_folder_cap_lets_onto_the_page_is_read(
    index: tuple[Hoard, list[str]],
) -> None:
    hoard, _ = index
    conn = hoard.index.reader()
    rows = {r.path: r for r in semantic_only_rows(conn, ["heavy/note-00.md", "heavy/note-04.md"])}
    rows |= {r.path: r for r in semantic_only_rows(conn, ["plain/note-02.md", "other/note-03.md"])}
    # Lexically: two heavy notes, then a weak plain one. With one note a folder first, the
    # page of two is the first heavy note and the plain one, whose blend is low: a note
    # found semantically alone between it and the second heavy note belongs on the page.
    lex = {"heavy/note-00.md": 10.0, "heavy/note-04.md": 9.0, "plain/note-02.md": 1.0}
    scores: Scores = {
        rows[p].id: Scored(s * rows[p].mult, False, rows[p]._replace(score=s * rows[p].mult))
        for p, s in lex.items()
    }
    req = SearchRequest(
        "apple",
        2,
        semantic=nearest_found([("other/note-03.md", 0.9), ("plain/note-02.md", 0.1)]),
        semantic_weight=0.8,
    )
    search = dataclasses.replace(SearchConfig(), folder_weights=WEIGHTS, folder_cap=1)
    got = blend_rows(conn, scores, req, search)
    assert [p for p, _ in page(got, req, 1)] == ["heavy/note-00.md", "other/note-03.md"]
