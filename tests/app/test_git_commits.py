"""[git] commit = true: one commit per change hoard makes, only its paths, the caller as
author and the ledger event ids in the message; a failed commit loses nothing."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.cli.main import run
from tests.helpers import note_text

WRITER = Caller("writer", frozenset({"read", "write", "confirm"}), "direct")
AGENT = Caller("agent", frozenset({"read", "write"}), "propose")
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "someone",
    "GIT_AUTHOR_EMAIL": "someone@example.invalid",
    "GIT_COMMITTER_NAME": "someone",
    "GIT_COMMITTER_EMAIL": "someone@example.invalid",
}


def note(title: str, body: str = "Text.") -> str:
    return note_text(title, body, tags="home, light")


def git(vault: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(vault), *args], env=ENV, capture_output=True, text=True, check=True
    )
    return out.stdout


def sha(vault: Path, rel: str) -> str:
    return hashlib.sha256((vault / rel).read_bytes()).hexdigest()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "tech").mkdir(parents=True)
    (root / "tech" / "lamp.md").write_text(note("Lamp"), encoding="utf-8")
    (root / "tech" / "desk.md").write_text(note("Desk", "See [[lamp]]."), encoding="utf-8")
    (root / "hoard.toml").write_text("[git]\ncommit = true\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def hoard(vault: Path, tmp_path: Path) -> Iterator[Hoard]:
    with Hoard(vault, tmp_path / "state") as h:
        yield h


def commits(vault: Path) -> list[tuple[str, str]]:
    """``(author, message)`` of hoard's commits, oldest first."""
    out = git(vault, "log", "--reverse", "--format=%an%x1f%B%x1e")
    rows = [r.strip("\n").split("\x1f") for r in out.split("\x1e") if r.strip()]
    return [(a, b) for a, b in rows if b.strip() != "start"]


def event_ids(message: str) -> list[int]:
    line = next(ln for ln in message.splitlines() if ln.startswith("hoard-events:"))
    return [int(x) for x in line.split(":", 1)[1].split(",")]


def test_a_scripted_session_makes_one_commit_per_change(hoard: Hoard, vault: Path) -> None:
    hoard.writes.write("tech/new.md", note("New"), caller=WRITER)
    hoard.edits.edit(
        "tech/lamp.md",
        [{"op": "append", "text": "More."}],
        sha(vault, "tech/lamp.md"),
        caller=WRITER,
    )
    hoard.writes.notes.file_note("tech/filed.md", note("Filed"), caller=WRITER)
    hoard.moves.move("tech/lamp.md", "home/lamp.md", sha(vault, "tech/lamp.md"), caller=WRITER)
    archived = hoard.writes.retirement.archive(
        "tech/new.md", "archived", sha(vault, "tech/new.md"), caller=WRITER
    )
    hoard.writes.retirement.restore(archived.revision_id, caller=WRITER)
    proposal = hoard.edits.edit(
        "tech/desk.md",
        [{"op": "append", "text": "Later."}],
        sha(vault, "tech/desk.md"),
        caller=AGENT,
    )
    assert proposal.proposal_id is not None
    hoard.writes.confirm(proposal.proposal_id, caller=WRITER)

    made = commits(vault)
    tools = [m.split(":", 1)[0] for _, m in made]
    assert tools == [
        "vault_write",
        "vault_edit",
        "vault_file_note",
        "vault_move",
        "vault_archive",
        "vault_restore",
        "vault_confirm",
    ]
    assert {a for a, _ in made} == {"writer"}
    # One to one with the ledger: each commit names the events of its change.
    with hoard.ledger.read() as conn:
        done = {
            row[0]: row[1]
            for row in conn.execute(
                "SELECT rowid, tool FROM events "
                "WHERE decision IN ('written', 'archived', 'restored')"
            )
        }
    named = [i for _, m in made for i in event_ids(m)]
    assert sorted(named) == sorted(done)
    assert git(vault, "status", "--porcelain") == ""


def test_outside_edits_are_never_swept_into_a_commit(hoard: Hoard, vault: Path) -> None:
    (vault / "tech" / "desk.md").write_text(note("Desk", "Edited in an editor."), "utf-8")
    (vault / "scratch.md").write_text("untracked\n", encoding="utf-8")
    git(vault, "add", "scratch.md")
    hoard.writes.write("tech/new.md", note("New"), caller=WRITER)
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["tech/new.md"]
    status = git(vault, "status", "--porcelain")
    assert " M tech/desk.md" in status
    assert "A  scratch.md" in status


def test_a_failing_commit_keeps_the_change_and_is_in_the_ledger(hoard: Hoard, vault: Path) -> None:
    (vault / ".git" / "index.lock").write_text("", encoding="utf-8")
    try:
        result = hoard.edits.edit(
            "tech/lamp.md",
            [{"op": "append", "text": "Kept."}],
            sha(vault, "tech/lamp.md"),
            caller=WRITER,
        )
    finally:
        (vault / ".git" / "index.lock").unlink()
    assert result.status == "written"
    assert (vault / "tech" / "lamp.md").read_text(encoding="utf-8").endswith("Kept.\n")
    events = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
    assert [e.decision for e in events[-2:]] == ["written", "commit_failed"]
    assert commits(vault) == []


def test_commits_are_off_by_default(vault: Path, tmp_path: Path) -> None:
    (vault / "hoard.toml").write_text("", encoding="utf-8")
    with Hoard(vault, tmp_path / "state2") as h:
        h.writes.write("tech/new.md", note("New"), caller=WRITER)
    assert commits(vault) == []


def test_history_shows_the_git_log_beside_the_ledger(
    hoard: Hoard, vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hoard.edits.edit(
        "tech/lamp.md",
        [{"op": "append", "text": "More."}],
        sha(vault, "tech/lamp.md"),
        caller=WRITER,
    )
    code = run(
        [
            "history",
            "tech/lamp.md",
            "--git",
            "--vault",
            str(vault),
            "--state-dir",
            str(tmp_path / "state"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "vault_edit: tech/lamp.md" in out and "ledger events" in out
    assert "event" in out
