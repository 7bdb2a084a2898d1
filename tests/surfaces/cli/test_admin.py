"""The owner's CLI for the server: ``hoard token add|list|revoke`` and ``hoard grant``."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import Caller
from hoard.surfaces.cli import main as cli


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``run(*argv)`` → (exit code, stdout, stderr) of ``hoard`` run in-process."""

    def go(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli.run(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return go


@pytest.fixture
def tokens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tokens file (these tests are about the file: a shared store's callers are tested in
    tests/app/test_replica_sign_in.py, and a file named beside a store is refused)."""
    monkeypatch.delenv("HOARD_STORE_URL", raising=False)
    return tmp_path / "config" / "tokens.json"


def test_token_add_prints_the_token_once_and_stores_only_its_digest(run, tokens: Path) -> None:
    code, out, _ = run(
        "token",
        "add",
        "claude",
        "--scopes",
        "read,write",
        "--write-mode",
        "direct",
        "--tokens",
        str(tokens),
        "--json",
    )
    assert code == 0
    printed = json.loads(out)
    assert set(printed) == {"name", "token", "scopes", "write_mode"}
    assert printed["name"] == "claude"
    assert printed["scopes"] == ["read", "write"]
    assert printed["write_mode"] == "direct"
    token = printed["token"]
    assert len(token) >= 32
    assert out.count(token) == 1

    raw = tokens.read_text(encoding="utf-8")
    assert token not in raw
    entry = json.loads(raw)["callers"][0]
    assert entry["sha256"] == hashlib.sha256(token.encode()).hexdigest()
    assert entry["name"] == "claude"
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    # The server side accepts exactly that token for exactly that caller.
    caller = TokenStore(tokens, strict=True).verify(token)
    assert caller is not None
    assert caller.name == "claude"
    assert caller.scopes == frozenset({"read", "write"})
    assert caller.write_mode == "direct"


def test_two_tokens_are_different_and_names_are_unique(run, tokens: Path) -> None:
    _, a, _ = run("token", "add", "a", "--tokens", str(tokens), "--json")
    _, b, _ = run("token", "add", "b", "--tokens", str(tokens), "--json")
    assert json.loads(a)["token"] != json.loads(b)["token"]
    code, out, _ = run("token", "add", "a", "--tokens", str(tokens), "--json")
    assert code == 2
    assert json.loads(out)["error"] == "exists"
    assert [e["name"] for e in json.loads(tokens.read_text())["callers"]] == ["a", "b"]


def test_token_add_refuses_an_unknown_scope(run, tokens: Path) -> None:
    code, out, _ = run(
        "token", "add", "x", "--scopes", "read,root", "--tokens", str(tokens), "--json"
    )
    assert code == 2
    assert json.loads(out)["error"] == "invalid_argument"
    assert not tokens.exists()


def test_token_list_never_prints_tokens(run, tokens: Path) -> None:
    secrets = []
    for name in ("alpha", "beta"):
        _, out, _ = run("token", "add", name, "--tokens", str(tokens), "--json")
        secrets.append(json.loads(out)["token"])
    digests = [e["sha256"] for e in json.loads(tokens.read_text())["callers"]]

    code, human, human_err = run("token", "list", "--tokens", str(tokens))
    assert code == 0
    code, as_json, json_err = run("token", "list", "--tokens", str(tokens), "--json")
    assert code == 0
    listed = json.loads(as_json)["callers"]
    assert [c["name"] for c in listed] == ["alpha", "beta"]
    assert all(set(c) == {"name", "scopes", "write_mode", "confirm_own"} for c in listed)
    for text in (human, human_err, as_json, json_err):
        for secret in (*secrets, *digests):
            assert secret not in text
    assert "alpha" in human
    assert "beta" in human


def test_token_add_confirm_own_is_kept_in_the_tokens_file(run, tokens: Path) -> None:
    code, out, err = run(
        "token",
        "add",
        "helper",
        "--scopes",
        "read,write,confirm",
        "--confirm-own",
        "--tokens",
        str(tokens),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["confirm_own"] is True
    _, out, _ = run(
        "token", "add", "plain", "--scopes", "read,write,confirm", "--tokens", str(tokens), "--json"
    )
    assert "confirm_own" not in json.loads(out)
    stored = {e["name"]: e for e in json.loads(tokens.read_text())["callers"]}
    assert stored["helper"]["confirm_own"] is True
    assert "confirm_own" not in stored["plain"]
    store = TokenStore(tokens)
    assert store.find("helper").caller().confirm_own  # type: ignore[union-attr]
    assert not store.find("plain").caller().confirm_own  # type: ignore[union-attr]
    _, human, _ = run("token", "list", "--tokens", str(tokens))
    assert "helper" in human and "confirms its own" in human.split("plain")[0]


def test_a_tokens_file_with_a_confirm_own_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    entry = {"name": "x", "sha256": "0" * 64, "scopes": ["read"], "write_mode": "propose"}
    path.write_text(json.dumps({"version": 1, "callers": [{**entry, "confirm_own": "yes"}]}))
    path.chmod(0o600)
    strict = TokenStore(path, strict=True)
    assert strict.status() is not None
    assert "confirm_own" in (strict.status() or "")


def test_token_revoke_removes_the_caller(run, tokens: Path) -> None:
    _, out, _ = run("token", "add", "gone", "--tokens", str(tokens), "--json")
    token = json.loads(out)["token"]
    run("token", "add", "kept", "--tokens", str(tokens), "--json")
    code, out, _ = run("token", "revoke", "gone", "--tokens", str(tokens), "--json")
    assert code == 0
    assert json.loads(out) == {"revoked": "gone"}
    _, listed, _ = run("token", "list", "--tokens", str(tokens), "--json")
    assert [c["name"] for c in json.loads(listed)["callers"]] == ["kept"]
    assert TokenStore(tokens).verify(token) is None
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    code, out, _ = run("token", "revoke", "gone", "--tokens", str(tokens), "--json")
    assert code == 2
    assert json.loads(out)["error"] == "not_found"


def test_the_console_script_prints_only_the_json_object_on_stdout(
    hoard_bin: Path, tmp_path: Path, tokens: Path
) -> None:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    proc = subprocess.run(
        [str(hoard_bin), "token", "add", "smoke", "--tokens", str(tokens), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["name"] == "smoke"


@pytest.fixture
def grant_args(protected_vault: Path, protected_state: Path, tokens: Path) -> list[str]:
    TokenStore(tokens).add("agent", "read", "propose")
    return [
        "--vault",
        str(protected_vault),
        "--state-dir",
        str(protected_state),
        "--tokens",
        str(tokens),
        "--json",
    ]


def test_grant_refuses_a_caller_that_does_not_exist(run, grant_args: list[str]) -> None:
    code, out, _ = run("grant", "agnet", "secret/**", "--minutes", "5", *grant_args)
    assert code == 2
    refused = json.loads(out)
    assert refused["error"] == "invalid_argument"
    assert "no caller named 'agnet'" in refused["message"]
    _, out, _ = run("grant", "--list", *grant_args)
    assert json.loads(out)["grants"] == []


def test_grant_list_and_revoke_from_the_cli(run, grant_args: list[str]) -> None:
    code, out, _ = run("grant", "agent", "secret/**", "--minutes", "5", *grant_args)
    assert code == 0
    grant: dict[str, Any] = json.loads(out)
    assert grant["caller"] == "agent"
    assert grant["glob"] == "secret/**"
    assert grant["grant_id"]
    assert grant["expires_at"] > 0

    code, out, _ = run("grant", "--list", *grant_args)
    assert code == 0
    listed = json.loads(out)
    assert [(g["grant_id"], g["caller"], g["glob"]) for g in listed["grants"]] == [
        (grant["grant_id"], "agent", "secret/**")
    ]
    assert listed["requests"] == []

    code, out, _ = run("grant", "--revoke", grant["grant_id"], *grant_args)
    assert code == 0
    assert json.loads(out) == {"revoked": grant["grant_id"]}
    _, out, _ = run("grant", "--list", *grant_args)
    assert json.loads(out)["grants"] == []

    code, out, _ = run("grant", "--revoke", grant["grant_id"], *grant_args)
    assert code == 2
    assert json.loads(out)["error"] == "not_found"


def test_a_cli_grant_lets_the_caller_read_the_protected_note(
    run, grant_args: list[str], protected_vault: Path, protected_state: Path
) -> None:
    agent = Caller("agent", frozenset({"read"}), "propose")
    assert run("grant", "agent", "secret/**", "--minutes", "5", *grant_args)[0] == 0
    with Hoard(protected_vault, protected_state) as hoard:
        assert "zanzibarquux" in hoard.reading.read("secret/plan.md", caller=agent).content


@pytest.mark.parametrize("minutes", ["0", "-1", "20000"])
def test_grant_refuses_a_duration_outside_one_week(
    run, grant_args: list[str], minutes: str
) -> None:
    code, out, _ = run("grant", "agent", "secret/**", "--minutes", minutes, *grant_args)
    assert code == 2
    assert json.loads(out)["error"] == "invalid_argument"
    _, out, _ = run("grant", "--list", *grant_args)
    assert json.loads(out)["grants"] == []


def test_grant_without_caller_and_glob_explains_its_usage(run, grant_args: list[str]) -> None:
    code, out, _ = run("grant", *grant_args)
    assert code == 2
    assert json.loads(out)["error"] == "invalid_argument"


def test_token_add_limits_a_caller_to_folders_and_old_files_still_load(run, tokens: Path) -> None:
    assert run("token", "add", "old", "--tokens", str(tokens))[0] == 0
    code, out, _ = run(
        "token",
        "add",
        "alice",
        "--scopes",
        "read,write",
        "--read",
        "team/**,shared/**",
        "--write",
        "team/alice/**",
        "--tokens",
        str(tokens),
        "--json",
    )
    assert code == 0
    printed = json.loads(out)
    assert (printed["read"], printed["write"]) == (["team/**", "shared/**"], ["team/alice/**"])
    stored = {e["name"]: e for e in json.loads(tokens.read_text())["callers"]}
    assert "read" not in stored["old"] and "write" not in stored["old"]
    assert stored["alice"]["read"] == ["team/**", "shared/**"]
    entry = TokenStore(tokens).find("alice")
    assert entry is not None
    assert entry.caller().read_globs == ("team/**", "shared/**")
    assert entry.caller().write_globs == ("team/alice/**",)
    code, human, _ = run("token", "list", "--tokens", str(tokens))
    assert "reads team/**,shared/**; writes team/alice/**" in human


def test_token_add_refuses_write_folders_outside_the_read_folders(run, tokens: Path) -> None:
    code, _, err = run(
        "token",
        "add",
        "wide",
        "--read",
        "team/**",
        "--write",
        "other/**",
        "--tokens",
        str(tokens),
    )
    assert code == 2
    assert "other/**" in err and "outside the read globs" in err
    assert not tokens.exists()


def test_a_tokens_file_with_malformed_folder_globs_is_not_trusted(tokens: Path) -> None:
    store = TokenStore(tokens, strict=True)
    store.add("alice", "read", "propose")
    data = json.loads(tokens.read_text())
    data["callers"][0]["read"] = "team/**"
    tokens.write_text(json.dumps(data))
    assert "callers[0].read must be a list of path globs" in (store.status() or "")
