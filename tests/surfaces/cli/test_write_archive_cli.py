"""``hoard write`` and ``hoard archive``: the ``vault_write`` and ``vault_archive`` tools'
twins at the CLI, through the same write path (gates, ledger, dry runs)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hoard.surfaces.cli.main import run
from tests.helpers import note_text, sha


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "v" / "tech").mkdir(parents=True)
    (tmp_path / "v" / "tech" / "lamp.md").write_text(note_text("Lamp", "The lamp."), "utf-8")
    (tmp_path / "v" / "tech" / "desk.md").write_text(
        note_text("Desk", "See [[lamp]]."), encoding="utf-8"
    )
    return tmp_path / "v"


def hoard(vault: Path, *args: str) -> int:
    return run([*args, "--vault", str(vault), "--state-dir", str(vault.parent / "state")])


def test_write_creates_a_note_from_stdin_and_refuses_to_overwrite_without_a_revision(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = note_text("Shelf", "A new shelf.")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert hoard(vault, "write", "tech/shelf.md", "--json") == 0
    assert json.loads(capsys.readouterr().out)["status"] == "written"
    assert (vault / "tech" / "shelf.md").read_text("utf-8") == text

    monkeypatch.setattr("sys.stdin", io.StringIO(note_text("Shelf", "Replaced.")))
    assert hoard(vault, "write", "tech/shelf.md", "--json") == 2
    assert json.loads(capsys.readouterr().out)["error"] in ("exists", "conflict")
    assert (vault / "tech" / "shelf.md").read_text("utf-8") == text


def test_write_overwrites_the_revision_given_from_a_file_and_a_dry_run_changes_nothing(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lamp = vault / "tech" / "lamp.md"
    before = lamp.read_bytes()
    new = tmp_path / "new.md"
    new.write_text(note_text("Lamp", "The lamp, brighter."), encoding="utf-8")
    rev = sha(before)
    args = ("write", "tech/lamp.md", "--file", str(new), "--expected-revision", rev)
    assert hoard(vault, *args, "--dry-run") == 0
    assert "+The lamp, brighter." in capsys.readouterr().out
    assert lamp.read_bytes() == before

    assert hoard(vault, *args) == 0
    assert capsys.readouterr().out.startswith("written tech/lamp.md")
    assert lamp.read_text("utf-8") == new.read_text("utf-8")
    assert hoard(vault, *args, "--json") == 2  # that revision is gone now
    assert json.loads(capsys.readouterr().out)["error"] == "conflict"


def test_archive_dry_run_lists_the_inbound_links_and_archive_keeps_the_bytes(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lamp = vault / "tech" / "lamp.md"
    before = lamp.read_bytes()
    assert hoard(vault, "archive", "tech/lamp.md", "--dry-run") == 0
    out = capsys.readouterr()
    assert out.out.startswith("would archive tech/lamp.md")
    assert "linked from tech/desk.md" in out.err
    assert lamp.read_bytes() == before

    assert hoard(vault, "archive", "tech/lamp.md", "--reason", "superseded", "--json") == 0
    done = json.loads(capsys.readouterr().out)
    assert done["status"] == "archived" and done["reason"] == "superseded"
    assert not lamp.exists()
    assert hoard(vault, "history", "--revision", done["revision_id"]) == 0
    assert capsys.readouterr().out.encode() == before
