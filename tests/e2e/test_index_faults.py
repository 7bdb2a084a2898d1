"""Fault injection on ``index.db``: six kinds of damage at three moments
(under a running stdio server, between a write and a restart, before a CLI command). Every
time answers keep coming (labeled when they come from the substring scan), the index is
rebuilt, and nothing in the vault or the ledger changes."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.cli.main import run


def _truncate_to_zero(db: Path) -> None:
    os.truncate(db, 0)


def _truncate_to_half(db: Path) -> None:
    os.truncate(db, db.stat().st_size // 2)


def _random_4k_in_the_middle(db: Path) -> None:
    with db.open("r+b") as f:
        f.seek(db.stat().st_size // 2)
        f.write(random.Random(18).randbytes(4096))


def _header_overwritten(db: Path) -> None:
    with db.open("r+b") as f:
        f.write(random.Random(1).randbytes(100))


def _replaced_by_a_directory(db: Path) -> None:
    db.unlink()
    db.mkdir()
    (db / "stray").write_text("not an index")


def _replaced_by_a_read_only_file(db: Path) -> None:
    junk = db.with_name("junk")
    junk.write_bytes(random.Random(2).randbytes(64 * 1024))
    junk.chmod(0o444)
    os.replace(junk, db)


WRITER = Caller("writer", frozenset({"read", "write"}), "direct")

FAULTS = [
    _truncate_to_zero,
    _truncate_to_half,
    _random_4k_in_the_middle,
    _header_overwritten,
    _replaced_by_a_directory,
    _replaced_by_a_read_only_file,
]


@pytest.fixture
def vault(tmp_path: Path, make_note: Callable[[str, str], str]) -> Path:
    root = tmp_path / "vault"
    for i in range(40):
        body = " ".join(f"word{i}x{j}" for j in range(150))
        (root / "tech").mkdir(parents=True, exist_ok=True)
        (root / f"tech/n{i}.md").write_text(make_note(f"Note {i}", body), encoding="utf-8")
    (root / "life").mkdir()
    (root / "life/target.md").write_text(make_note("Target", "the pangolin sleeps"), "utf-8")
    return root


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def writer_args(tmp_path: Path) -> list[str]:
    tokens = tmp_path / "tokens.json"
    TokenStore(tokens).add("writer", "read,write", "direct")
    return ["--tokens", str(tokens), "--as", "writer"]


def _vault_bytes(vault: Path) -> dict[str, str]:
    return {
        str(p.relative_to(vault)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(vault.rglob("*"))
        if p.is_file()
    }


def _ledger_rows(state: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{state / 'ledger.db'}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _index_is_sound(db: Path, notes: int) -> bool:
    if not db.is_file():
        return False
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            return ok and conn.execute("SELECT count(*) FROM notes").fetchone()[0] == notes
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _search(server: Any, query: str) -> dict[str, Any]:
    result = server.call("vault_search", {"query": query})
    assert not result.get("isError"), result
    return dict(result["structuredContent"])


def _labeled(answer: dict[str, Any]) -> bool:
    """A fallback answer says so; an index answer is the index's."""
    if answer["engine"] == "substring-fallback":
        return bool(answer["error"])
    return answer["engine"] == "fts5" and answer["error"] is None


def test_damage_under_a_running_server_falls_back_labeled_and_rebuilds(
    vault: Path, state: Path, start_stdio: Callable[..., Any], poll: Callable[..., Any]
) -> None:
    server = start_stdio(vault, state)
    db = state / "index.db"
    assert _search(server, "pangolin")["engine"] == "fts5"
    before_vault, before_ledger = _vault_bytes(vault), _ledger_rows(state)
    for fault in FAULTS:
        fault(db)

        first = _search(server, "pangolin")

        assert first["engine"] == "substring-fallback", fault.__name__
        assert first["error"], fault.__name__
        assert [r["path"] for r in first["results"]] == ["life/target.md"]
        poll(lambda: _search(server, "pangolin")["engine"] == "fts5")
        assert _index_is_sound(db, 41), fault.__name__
    assert _vault_bytes(vault) == before_vault
    assert _ledger_rows(state) == before_ledger


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.__name__.strip("_"))
def test_damage_between_a_write_and_a_restart_is_rebuilt_at_the_next_start(
    vault: Path,
    state: Path,
    fault: Callable[[Path], None],
    writer_args: list[str],
    start_stdio: Callable[..., Any],
    make_note: Callable[[str, str], str],
    poll: Callable[..., Any],
) -> None:
    """The write and the damage happen in this process (a vault opened, written, damaged,
    closed); the start that finds the damage is a real server's."""
    first = Hoard(vault, state)
    try:
        written = first.writes.write("life/new.md", make_note("New", "x"), caller=WRITER)
        assert written.status == "written"
        fault(state / "index.db")
    finally:
        first.close()
    before_vault, before_ledger = _vault_bytes(vault), _ledger_rows(state)

    server = start_stdio(vault, state, *writer_args)
    answer = _search(server, "pangolin")

    assert _labeled(answer)
    assert [r["path"] for r in answer["results"]] == ["life/target.md"]
    poll(lambda: _search(server, "pangolin")["engine"] == "fts5")
    assert _index_is_sound(state / "index.db", 42)
    assert _vault_bytes(vault) == before_vault
    assert _ledger_rows(state) == before_ledger


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.__name__.strip("_"))
def test_damage_before_a_cli_command_never_stops_it(
    vault: Path,
    state: Path,
    fault: Callable[[Path], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The commands run in this process (the console script's own start is tested beside
    the CLI): an exception escaping one fails the test as a traceback on stderr would."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    where = ["--vault", str(vault), "--state-dir", str(state)]
    assert run(["index", *where]) == 0
    capsys.readouterr()
    before_vault, before_ledger = _vault_bytes(vault), _ledger_rows(state)

    for command in (["search", "pangolin"], ["index"], ["check"]):
        fault(state / "index.db")
        code = run([*command, *where, "--json"])
        out, err = capsys.readouterr()

        assert code in (0, 1), (command, err)
        assert "Traceback" not in err
        if command[0] == "search":
            answer = json.loads(out)
            assert _labeled(answer)
            assert [r["path"] for r in answer["results"]] == ["life/target.md"]
        assert _index_is_sound(state / "index.db", 41), command
    assert _vault_bytes(vault) == before_vault
    assert _ledger_rows(state) == before_ledger


def test_a_note_written_while_the_index_cannot_take_writes_is_found_labeled(
    vault: Path,
    state: Path,
    writer_args: list[str],
    start_stdio: Callable[..., Any],
    make_note: Callable[[str, str], str],
    poll: Callable[..., Any],
) -> None:
    server = start_stdio(vault, state, *writer_args)
    assert _search(server, "pangolin")["engine"] == "fts5"
    _replaced_by_a_directory(state / "index.db")
    note = {"path": "life/late.md", "content": make_note("Late", "the okapi arrives")}

    assert server.call("vault_write", note)["structuredContent"]["status"] == "written"
    answer = _search(server, "okapi")

    assert [r["path"] for r in answer["results"]] == ["life/late.md"]
    assert _labeled(answer)
    assert answer["engine"] == "substring-fallback"
    assert "missed a write" in answer["error"]
    poll(lambda: _search(server, "okapi")["engine"] == "fts5")
    assert [r["path"] for r in _search(server, "okapi")["results"]] == ["life/late.md"]
    assert _index_is_sound(state / "index.db", 42)
