"""``hoard --server URL --token-file F ...``: the CLI through a running server's JSON API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hoard.surfaces.cli.main import run
from tests.surfaces.api.conftest import Api, note


@pytest.fixture
def remote(api: Api, tmp_path: Path) -> list[str]:
    token_file = tmp_path / "token"
    token_file.write_text(api.tokens["proposer"] + "\n")
    return ["--server", api.url, "--token-file", str(token_file)]


def test_search_and_read_through_the_server_print_like_the_local_cli(
    remote: list[str], capsys: pytest.CaptureFixture[str], api: Api
) -> None:
    assert run([*remote, "search", "bridge firmware", "--limit", "3"]) == 0
    assert "tech/hub.md" in capsys.readouterr().out
    assert run([*remote, "read", "tech/hub.md"]) == 0
    assert capsys.readouterr().out == (api.vault / "tech" / "hub.md").read_text()
    assert run([*remote, "list", "tech"]) == 0
    assert "tech/hub.md" in capsys.readouterr().out


def test_json_output_is_the_api_object(
    remote: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([*remote, "links", "tech/other.md", "--json"]) == 0
    assert "missing-note" in json.loads(capsys.readouterr().out)["broken"]


def test_a_refusal_prints_the_error_code_and_exits_2(
    remote: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([*remote, "read", "secret/plan.md"]) == 2
    assert "protected" in capsys.readouterr().err
    assert run([*remote, "read", "tech/none.md", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "not_found"


def test_proposals_are_listed_and_rejected_through_the_server(
    remote: list[str], capsys: pytest.CaptureFixture[str], api: Api
) -> None:
    made = api.client("proposer").put(
        "/notes/tech/remote.md",
        json={"content": note("Remote", "From afar.")},
        headers={"If-None-Match": "*"},
    )
    pid = made.json()["proposal_id"]
    assert run([*remote, "proposals"]) == 0
    assert pid in capsys.readouterr().out
    assert run([*remote, "reject", pid]) == 2, "the proposer lacks the confirm scope"
    capsys.readouterr()


def test_a_local_only_command_is_refused_with_server(
    remote: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([*remote, "check"]) == 2
    assert "local vault only" in capsys.readouterr().err


def _as(api: Api, tmp_path: Path, who: str) -> list[str]:
    token_file = tmp_path / f"token-{who}"
    token_file.write_text(api.tokens[who] + "\n")
    return ["--server", api.url, "--token-file", str(token_file)]


def test_edit_mv_and_tags_through_the_server(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = _as(api, tmp_path, "writer")
    made = api.client("writer").put(
        "/notes/tech/remote-edit.md",
        json={"content": note("Remote edit", "Body.")},
        headers={"If-None-Match": "*"},
    )
    assert made.status_code == 201, made.text
    file = api.vault / "tech" / "remote-edit.md"
    assert (
        run(
            [
                *writer,
                "edit",
                "tech/remote-edit.md",
                "--append",
                "Appended from afar.",
                "--tag",
                "remote",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("written tech/remote-edit.md")
    assert "Appended from afar." in file.read_text() and "remote" in file.read_text()
    assert run([*writer, "mv", "tech/remote-edit.md", "life/remote-edit.md", "--dry-run"]) == 0
    assert "life/remote-edit.md" in capsys.readouterr().out and file.exists()
    assert run([*writer, "mv", "tech/remote-edit.md", "life/remote-edit.md"]) == 0
    assert "moved tech/remote-edit.md -> life/remote-edit.md" in capsys.readouterr().out
    assert not file.exists() and (api.vault / "life" / "remote-edit.md").exists()
    assert run([*writer, "tags", "--json"]) == 0
    tags = {t["tag"]: t["count"] for t in json.loads(capsys.readouterr().out)["tags"]}
    assert tags["remote"] == 1


def test_a_remote_edit_of_a_proposer_is_a_proposal_and_a_stale_revision_is_refused(
    api: Api, remote: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = (api.vault / "tech" / "hub.md").read_bytes()
    assert run([*remote, "edit", "tech/hub.md", "--append", "proposed line"]) == 0
    assert capsys.readouterr().out.startswith("proposed tech/hub.md: proposal ")
    assert (
        run([*remote, "edit", "tech/hub.md", "--append", "x", "--revision", "0" * 64, "--json"])
        == 2
    )
    assert json.loads(capsys.readouterr().out)["error"] == "conflict"
    assert (api.vault / "tech" / "hub.md").read_bytes() == before


def test_write_and_archive_through_the_server(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = _as(api, tmp_path, "writer")
    source = tmp_path / "far.md"
    source.write_text(note("Far note", "Written from afar."), encoding="utf-8")
    file = api.vault / "tech" / "far.md"
    assert run([*writer, "write", "tech/far.md", "--file", str(source), "--dry-run"]) == 0
    assert "+Written from afar." in capsys.readouterr().out and not file.exists()
    assert run([*writer, "write", "tech/far.md", "--file", str(source)]) == 0
    assert capsys.readouterr().out.startswith("written tech/far.md")
    assert file.read_text("utf-8") == source.read_text("utf-8")
    assert run([*writer, "write", "tech/far.md", "--file", str(source), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] in ("exists", "conflict")

    assert run([*writer, "archive", "tech/far.md", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "dry_run" and file.exists()
    assert run([*writer, "archive", "tech/far.md"]) == 0
    assert capsys.readouterr().out.startswith("archived tech/far.md")
    assert not file.exists()
