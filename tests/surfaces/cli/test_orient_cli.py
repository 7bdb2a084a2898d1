"""``hoard hook session-start``, ``hoard recent`` and ``hoard context`` through the CLI
runner: the hook reads the harness's JSON on stdin, prints a bounded briefing, and each
session is told only what changed since the previous one."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.surfaces.cli.main import run
from tests.helpers import make_vault, note_text

HookRun = Callable[..., tuple[int, str, str]]
SESSION_START = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}


@pytest.fixture
def hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> HookRun:
    vault = make_vault(tmp_path / "vault", {"tech/a.md": note_text("Alpha", "First note.")})
    state = tmp_path / "state"

    def call(*extra: str, stdin: str = json.dumps(SESSION_START)) -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        argv = ["hook", "session-start", "--vault", str(vault), "--state-dir", str(state)]
        code = run([*argv, *extra])
        out, err = capsys.readouterr()
        return code, out, err

    call.vault = vault  # type: ignore[attr-defined]
    call.state = state  # type: ignore[attr-defined]
    return call


def write_through_hoard(vault: Path, state: Path, rel: str, title: str) -> None:
    with Hoard(vault, state) as h:
        h.writes.write(rel, note_text(title, "Written by an agent."), caller=OWNER)


def test_the_session_hook_prints_only_what_changed_since_the_previous_session(
    hook: HookRun,
) -> None:
    code, first, _ = hook()
    assert code == 0 and "tech/a.md" in first
    write_through_hoard(hook.vault, hook.state, "tech/b.md", "Beta")  # type: ignore[attr-defined]
    code, second, _ = hook()
    assert code == 0
    assert "tech/b.md" in second and "by owner" in second
    assert "tech/a.md" not in second
    code, third, _ = hook()
    assert "Nothing changed since you last looked" in third


def test_the_session_hook_output_is_bounded(hook: HookRun) -> None:
    for i in range(40):
        write_through_hoard(hook.vault, hook.state, f"log/n{i}.md", f"Note {i}")  # type: ignore[attr-defined]
    code, out, _ = hook("--max-bytes", "512")
    assert code == 0
    assert len(out.encode()) <= 512
    assert out.endswith("[... cut]\n")


def test_the_session_hook_never_fails_a_session_start_on_bad_input(hook: HookRun) -> None:
    code, out, err = hook("--as", "nobody")
    assert code == 0 and out == "" and "nobody" in err
    code, out, _ = hook(stdin="not json")
    assert code == 0 and out == ""


def test_recent_and_context_commands_answer_json(
    hook: HookRun, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(hook.vault), "--state-dir", str(hook.state), "--json"]  # type: ignore[attr-defined]
    assert run(["recent", *common]) == 0
    recent = json.loads(capsys.readouterr().out)
    assert [c["path"] for c in recent["changes"]] == ["tech/a.md"]
    assert recent["cursor"].startswith("r1.")
    assert run(["context", "tech/a.md", "--budget-bytes", "1024", *common]) == 0
    context = json.loads(capsys.readouterr().out)
    assert context["parts"][0]["kind"] == "note" and context["used_bytes"] <= 1024
