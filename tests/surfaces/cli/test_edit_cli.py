"""``hoard edit`` through the CLI runner: flags become the tool's edit list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hoard.surfaces.cli.main import run

NOTE = (
    "---\ntitle: Lamp\ntype: note\nstatus: draft\ntags: [home, light]\nupdated: 2026-03-01\n"
    "---\n## Log\n- bought\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "v" / "tech").mkdir(parents=True)
    (tmp_path / "v" / "tech" / "lamp.md").write_text(NOTE, encoding="utf-8")
    return tmp_path / "v"


def hoard(vault: Path, *args: str) -> int:
    return run([*args, "--vault", str(vault), "--state-dir", str(vault.parent / "state")])


def test_flags_edit_the_note_through_the_write_path(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = hoard(
        vault,
        "edit",
        "tech/lamp.md",
        "--section",
        "Log",
        "--append-section",
        "- fixed",
        "--set",
        "status=active",
        "--tag",
        "desk",
        "--json",
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "written"
    text = (vault / "tech" / "lamp.md").read_text(encoding="utf-8")
    assert "status: active" in text
    assert "tags: [home, light, desk]" in text
    assert text.endswith("- bought\n- fixed\n")


def test_a_dry_run_prints_the_diff_and_changes_nothing(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = hoard(vault, "edit", "tech/lamp.md", "--append", "More.", "--dry-run")
    assert code == 0
    assert "+More." in capsys.readouterr().out
    assert (vault / "tech" / "lamp.md").read_text(encoding="utf-8") == NOTE


def test_a_json_edit_list_and_a_refusal(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edits = json.dumps([{"op": "replace_section", "heading": "Nope", "text": ""}])
    code = hoard(vault, "edit", "tech/lamp.md", "--edits", edits, "--json")
    assert code != 0
    assert json.loads(capsys.readouterr().out)["error"] == "not_found"
    assert (vault / "tech" / "lamp.md").read_text(encoding="utf-8") == NOTE


def test_a_stale_revision_is_a_conflict(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = hoard(vault, "edit", "tech/lamp.md", "--append", "x", "--revision", "0" * 64)
    assert code != 0
    assert "conflict" in capsys.readouterr().err


def test_nothing_to_do_is_an_error(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hoard(vault, "edit", "tech/lamp.md") != 0
    assert "nothing to do" in capsys.readouterr().err


def test_search_filters_and_tags_on_the_command_line(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert hoard(vault, "search", "--status", "draft", "--tag", "home", "--json") == 0
    found = json.loads(capsys.readouterr().out)
    assert [h["path"] for h in found["results"]] == ["tech/lamp.md"]
    assert hoard(vault, "search", "--status", "done") == 0
    assert "no matches" in capsys.readouterr().out
    assert hoard(vault, "tags") == 0
    assert "home" in capsys.readouterr().out


def test_mv_moves_and_rewrites_links(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "tech" / "desk.md").write_text(NOTE.replace("Lamp", "Desk") + "[[lamp]]\n", "utf-8")
    assert hoard(vault, "mv", "tech/lamp.md", "home/lamp.md", "--dry-run") == 0
    assert "+++ b/home/lamp.md" in capsys.readouterr().out
    assert (vault / "tech" / "lamp.md").exists()
    assert hoard(vault, "mv", "tech/lamp.md", "home/lamp.md", "--json") == 0
    assert json.loads(capsys.readouterr().out)["status"] == "moved"
    assert not (vault / "tech" / "lamp.md").exists()
    assert "[[lamp]]" in (vault / "tech" / "desk.md").read_text(encoding="utf-8")
    assert hoard(vault, "mv", "home/lamp.md", "tech/desk.md") != 0
    assert "exists" in capsys.readouterr().err


def test_replace_block_replaces_the_marked_list_item(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "tech" / "lamp.md").write_text(NOTE + "- flickers ^flicker\n", encoding="utf-8")
    assert hoard(vault, "edit", "tech/lamp.md", "--replace-block", "flicker", "- fixed") == 0
    text = (vault / "tech" / "lamp.md").read_text(encoding="utf-8")
    assert text.endswith("## Log\n- bought\n- fixed ^flicker\n")
