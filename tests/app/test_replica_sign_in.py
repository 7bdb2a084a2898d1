"""Callers, web sessions, sign-in codes and OAuth codes are one set across a vault's replicas:
on files (two processes over one state folder and one tokens file) and on PostgreSQL (two
replicas with state folders of their own, one shared store)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hoard.app.callers import CallerFile, in_store, open_callers
from hoard.app.hoard import Hoard
from hoard.app.oauth_grants import GrantStore
from hoard.core.errors import Forbidden, InvalidArgument
from hoard.surfaces.cli import main as cli


@pytest.fixture(params=["files", "postgres"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Where shared state lives: the state folder, or a PostgreSQL store of this test's own."""
    if request.param == "postgres":
        monkeypatch.setenv("HOARD_STORE_URL", request.getfixturevalue("pg_store"))
    else:
        monkeypatch.delenv("HOARD_STORE_URL", raising=False)
    return str(request.param)


@pytest.fixture
def tokens_file(tmp_path: Path, engine: str) -> Path | None:
    """The tokens file the replicas share on files; none with a store (its table instead)."""
    return tmp_path / "tokens.json" if engine == "files" else None


@pytest.fixture
def replicas(
    open_hoard: Callable[..., Hoard], tmp_path: Path, state_dir: Path, engine: str
) -> tuple[Hoard, Hoard]:
    """Two hoards over one vault: one state folder on files, one each with a store."""
    second = state_dir if engine == "files" else tmp_path / "state-b"
    return open_hoard(), open_hoard(state=second)


def redeem(grants: GrantStore, code: str) -> bool:
    return grants.use_code(code)


def callers_of(tokens_file: Path | None) -> CallerFile:
    return open_callers(tokens_file)


def test_a_token_revoked_by_another_process_is_refused_at_the_next_request(
    hoard_bin: Path, tokens_file: Path | None, engine: str
) -> None:
    serving = callers_of(tokens_file)
    try:
        assert in_store(serving) == (engine == "postgres")
        _, token = callers_of(tokens_file).add("agent", "read", "propose")
        assert serving.verify(token) is not None
        option = ["--tokens", str(tokens_file)] if tokens_file else []
        done = subprocess.run(
            [str(hoard_bin), "token", "revoke", "agent", *option, "--json"],
            capture_output=True,
            text=True,
            env=os.environ.copy(),
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert serving.verify(token) is None
        assert serving.find("agent") is None
    finally:
        serving.close()


def test_a_token_added_by_another_process_is_known_at_the_next_request(
    hoard_bin: Path, tokens_file: Path | None
) -> None:
    serving = callers_of(tokens_file)
    try:
        assert serving.entries() == []
        option = ["--tokens", str(tokens_file)] if tokens_file else []
        argv = [str(hoard_bin), "token", "add", "alice", "--scopes", "read,write", *option]
        argv += ["--read", "team/**", "--write", "team/alice/**", "--confirm-own", "--json"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        caller = serving.verify(json.loads(done.stdout)["token"])
        assert caller is not None and caller.name == "alice"
        entry = serving.find("alice")
        assert entry is not None
        assert entry.scopes == ("read", "write") and entry.confirm_own
        assert entry.read_globs == ("team/**",) and entry.write_globs == ("team/alice/**",)
    finally:
        serving.close()


def test_a_tokens_file_named_while_a_store_is_configured_is_refused(
    pg_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    with pytest.raises(InvalidArgument, match="shared store"):
        open_callers(tmp_path / "tokens.json")
    code = cli.run(["token", "list", "--tokens", str(tmp_path / "tokens.json")])
    assert code != 0
    assert not (tmp_path / "tokens.json").exists()


def test_a_sign_in_code_redeemed_on_one_replica_cannot_be_redeemed_on_the_other(
    replicas: tuple[Hoard, Hoard], tokens_file: Path | None
) -> None:
    a, b = replicas
    callers = callers_of(tokens_file)
    try:
        on_a, on_b = a.owner_tools(callers)[0], b.owner_tools(callers)[0]
        code = on_a.issue_code()
        secret, _ = on_b.sign_in_with_code(code, "browser")
        assert on_a.current(secret) is not None
        for sessions in (on_a, on_b):
            with pytest.raises(Forbidden, match="used already"):
                sessions.sign_in_with_code(code, "browser")
    finally:
        callers.close()


def test_a_session_opened_on_one_replica_is_valid_on_the_other_until_signed_out(
    replicas: tuple[Hoard, Hoard], tokens_file: Path | None
) -> None:
    a, b = replicas
    callers = callers_of(tokens_file)
    try:
        _, admin = callers.add("owner", "read,admin", "direct")
        on_a, on_b = a.owner_tools(callers)[0], b.owner_tools(callers)[0]
        secret, session = on_a.sign_in(admin, "browser")
        seen = on_b.current(secret)
        assert seen is not None and seen.row == session.row
        assert [s.session_id for s in on_b.active()] == [session.row.session_id]
        on_b.sign_out(secret)
        assert on_a.current(secret) is None
    finally:
        callers.close()


def test_an_oauth_code_is_usable_once_across_replicas_even_when_both_race(
    replicas: tuple[Hoard, Hoard],
) -> None:
    a, b = replicas
    grants_a, grants_b = a.grant_store(), b.grant_store()
    grants_a.save_client("client-1", '{"client_id": "client-1"}')
    grants_a.save_client("client-1", '{"client_id": "client-1", "again": true}')
    assert grants_b.client("client-1") == '{"client_id": "client-1", "again": true}'
    for n in range(5):
        grants_a.save_code(f"code-{n}", f"grant-{n}", "client-1", {"n": n}, time.time() + 60)
        stored = grants_b.code(f"code-{n}")
        assert stored is not None and stored.record == {"n": n} and not stored.used
        code = f"code-{n}"
        with ThreadPoolExecutor(2) as pool:
            wins = list(pool.map(redeem, (grants_a, grants_b), (code, code)))
        assert sorted(wins) == [False, True]
        assert not grants_a.use_code(f"code-{n}") and not grants_b.use_code(f"code-{n}")


def test_a_pending_consent_request_is_answered_once_across_replicas(
    replicas: tuple[Hoard, Hoard],
) -> None:
    a, b = replicas
    a.grant_store().save_request("req-1", "client-1", {"scope": "read"}, 60)
    assert b.grant_store().request("req-1") == ("client-1", {"scope": "read"})
    assert b.grant_store().request("req-1", take=True) == ("client-1", {"scope": "read"})
    assert a.grant_store().request("req-1", take=True) is None


def test_a_web_db_made_before_its_schema_was_numbered_keeps_its_sessions(
    open_hoard: Callable[..., Hoard],
    state_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HOARD_STORE_URL", raising=False)
    state_dir.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(state_dir / "web.db") as db:
        db.executescript(
            """
            CREATE TABLE sessions(digest TEXT PRIMARY KEY, caller TEXT NOT NULL,
              csrf TEXT NOT NULL, agent TEXT NOT NULL, created_at REAL NOT NULL,
              expires_at REAL NOT NULL, revoked_at REAL);
            CREATE TABLE signin_codes(digest TEXT PRIMARY KEY, expires_at REAL NOT NULL,
              used_at REAL);
            """
        )
        db.execute(
            "INSERT INTO sessions VALUES("
            "'b1b9d4ac1d1e9fc6a8e2b9d5e5c0b0d3b2f1b2a0c9b1c0a1e8e6d0c8b0a1f2e3',"
            "'sign-in-link','csrf','old browser',?,?,NULL)",
            (time.time(), time.time() + 3600),
        )
    db.close()
    callers = open_callers(tmp_path / "tokens.json")
    sessions = open_hoard().owner_tools(callers)[0]
    assert [s.agent for s in sessions.active()] == ["old browser"]
    secret, _ = sessions.sign_in_with_code(sessions.issue_code(), "new browser")
    assert sessions.current(secret) is not None
