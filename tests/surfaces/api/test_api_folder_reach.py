"""Folders per caller over HTTP: a token limited to folders through the JSON API (a real
server) and the CLI's ``--server`` mode. Outside its read folders nothing exists for it
(``not_found``, never named nor counted); outside its write folders a write is forbidden."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.surfaces.cli.main import run
from tests.surfaces.api.conftest import SECRET_WORD, Api, note, serving

LONG_WORD = "word"
"""Only life/long.md, outside the caller's folders, holds it."""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("reach")) as served:
        made = served.client("owner").post(
            "/admin/tokens",
            json={
                "name": "alice",
                "scopes": ["read", "write"],
                "write_mode": "direct",
                "read": ["tech/**"],
                "write": ["tech/alice/**"],
            },
        )
        assert made.status_code == 201, made.text
        served.tokens["alice"] = made.json()["token"]
        yield served


def assert_unnamed(text: str) -> None:
    for word in ("life/", "long.md", "secret", "personal-notes", SECRET_WORD):
        assert word not in text.lower(), (word, text)


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/search", {"q": SECRET_WORD}),
        ("/search", {"q": LONG_WORD}),
        ("/list", {"recursive": "true"}),
        ("/list", {}),
        ("/tags", {}),
        ("/proposals", {}),
        ("/policy", {}),
        ("/notes/tech/hub.md/links", {}),
    ],
    ids=lambda v: v if isinstance(v, str) else json.dumps(v),
)
def test_no_api_answer_names_a_note_outside_the_callers_folders(
    api: Api, path: str, params: dict[str, str]
) -> None:
    r = api.client("alice").get(path, params=params)
    assert r.status_code == 200, r.text
    assert_unnamed(r.text.replace(f'"{params.get("q", "")}"', ""))


@pytest.mark.parametrize("word", [SECRET_WORD, LONG_WORD])
def test_an_api_search_for_a_word_only_outside_the_folders_finds_and_counts_nothing(
    api: Api, word: str
) -> None:
    body = api.client("alice").get("/search", params={"q": word}).json()
    assert body["results"] == []
    assert body["hidden_protected"] == 0
    assert (
        api.client("reader").get("/search", params={"q": SECRET_WORD}).json()["hidden_protected"]
        == 1
    ), "an unlimited caller still has the protected note counted"


@pytest.mark.parametrize("suffix", ["", "/links", "/history"])
@pytest.mark.parametrize("path", ["life/long.md", "secret/plan.md"])
def test_an_api_read_outside_the_folders_answers_like_a_missing_note(
    api: Api, path: str, suffix: str
) -> None:
    alice = api.client("alice")
    hidden = alice.get(f"/notes/{path}{suffix}")
    missing = alice.get(f"/notes/tech/none.md{suffix}")
    assert hidden.status_code == missing.status_code
    assert hidden.text.replace(path, "X") == missing.text.replace("tech/none.md", "X")


def _revision(api: Api, path: str) -> str:
    return str(api.client("owner").get(f"/notes/{path}").json()["revision"])


WRITES: dict[str, tuple[str, str, dict[str, Any], bool]] = {
    # case: (method, url, json body, needs the note's revision)
    "put-outside-reach": ("PUT", "/notes/life/new.md", {"content": note("N", "x")}, False),
    "put-readable-folder": ("PUT", "/notes/tech/new.md", {"content": note("N", "x")}, False),
    "put-over-readable-note": ("PUT", "/notes/tech/hub.md", {"content": note("N", "x")}, True),
    "archive-readable-note": ("POST", "/notes/tech/other.md/archive", {"reason": "archived"}, True),
    "move-out-of-write-folders": (
        "POST", "/notes/tech/alice/mine.md/move", {"new_path": "tech/mine.md"}, True),
    "move-into-write-folders": (
        "POST", "/notes/tech/hub.md/move", {"new_path": "tech/alice/hub.md"}, True),
    "move-to-outside-reach": (
        "POST", "/notes/tech/alice/mine.md/move", {"new_path": "life/mine.md"}, True),
}  # fmt: skip


@pytest.mark.parametrize("case", list(WRITES))
def test_an_api_write_outside_the_write_folders_is_forbidden(api: Api, case: str) -> None:
    if not (api.vault / "tech" / "alice" / "mine.md").exists():
        made = api.client("alice").put(
            "/notes/tech/alice/mine.md",
            json={"content": note("Mine", "Alice's.")},
            headers={"If-None-Match": "*"},
        )
        assert made.status_code == 201, made.text
    method, url, body, needs = WRITES[case]
    source = url.removeprefix("/notes/").split(".md")[0] + ".md"
    headers = {"If-Match": f'"{_revision(api, source)}"'} if needs else {"If-None-Match": "*"}
    before = sorted(p.as_posix() for p in api.vault.rglob("*.md"))
    r = api.client("alice").request(method, url, json=body, headers=headers)
    assert r.status_code == 403, r.text
    assert r.json()["error"] == "forbidden"
    assert "outside the folders you may write" in r.json()["message"]
    assert sorted(p.as_posix() for p in api.vault.rglob("*.md")) == before


def test_a_token_whose_write_folders_reach_past_its_read_folders_is_refused(api: Api) -> None:
    r = api.client("owner").post(
        "/admin/tokens",
        json={"name": "wide", "scopes": ["read", "write"], "read": ["tech/**"], "write": ["**"]},
    )
    assert r.status_code == 400, r.text
    assert "outside the read globs" in r.json()["message"]
    listed = api.client("owner").get("/admin/tokens").json()["callers"]
    assert "wide" not in {c["name"] for c in listed}
    alice = next(c for c in listed if c["name"] == "alice")
    assert (alice["read"], alice["write"]) == (["tech/**"], ["tech/alice/**"])


def test_a_caller_without_folders_still_reads_and_finds_everything(api: Api) -> None:
    owner = api.client("owner")
    assert owner.get("/notes/life/long.md").status_code == 200
    found = owner.get("/search", params={"q": LONG_WORD}).json()["results"]
    assert "life/long.md" in [h["path"] for h in found]


@pytest.fixture
def remote(api: Api, tmp_path: Path) -> list[str]:
    token_file = tmp_path / "token"
    token_file.write_text(api.tokens["alice"] + "\n")
    return ["--server", api.url, "--token-file", str(token_file)]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", SECRET_WORD, "--json"],
        ["search", LONG_WORD],
        ["list", "--json"],
        ["tags", "--json"],
        ["links", "tech/hub.md", "--json"],
    ],
    ids=" ".join,
)
def test_the_cli_through_the_server_never_names_a_note_outside_the_folders(
    remote: list[str], capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code = run([*remote, *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert_unnamed((out + err).replace(argv[1] if len(argv) > 1 else "\0", ""))
    assert "hidden" not in out or '"hidden_protected": 0' in out


@pytest.mark.parametrize("argv", [["read", "life/long.md"], ["links", "secret/plan.md"]])
def test_the_cli_through_the_server_reads_outside_the_folders_as_not_found(
    remote: list[str], capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert run([*remote, *argv, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "not_found"


def test_the_cli_through_the_server_is_forbidden_to_write_outside_the_write_folders(
    remote: list[str], capsys: pytest.CaptureFixture[str], api: Api
) -> None:
    before = (api.vault / "tech" / "hub.md").read_bytes()
    assert run([*remote, "edit", "tech/hub.md", "--append", "Appended.", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "forbidden"
    assert (api.vault / "tech" / "hub.md").read_bytes() == before
