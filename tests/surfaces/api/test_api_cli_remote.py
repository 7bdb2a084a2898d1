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
        "/notes/tech/remote.md", json={"content": note("Remote", "From afar.")},
        headers={"If-None-Match": "*"},
    )  # fmt: skip
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
