"""``hoard store init|check|migrate`` through the real console script against a throwaway
PostgreSQL cluster: the operator's side of replicas sharing a store."""

from __future__ import annotations

import itertools
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from hoard.adapters.store.pg import PostgresServer
from hoard.app.callers import open_callers
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from tests.helpers import free_port, hoard_env, note_text, sha, wait_until

PROPOSER = Caller("agent", frozenset({"read", "write"}), "propose")
WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
LEDGER_TABLES = (
    "grants",
    "access_requests",
    "revisions",
    "events",
    "proposals",
    "proposal_decisions",
    "transactions",
    "transaction_blobs",
    "transaction_outcomes",
    "claims",
    "syntheses",
    "synthesis_sources",
    "kept_bytes",
    "clobbers",
    "clobber_decisions",
)


def hoard_cli(hoard_bin: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = hoard_env(tmp)
    env.pop("HOARD_STORE_URL", None)
    return subprocess.run(
        [str(hoard_bin), *args], capture_output=True, text=True, env=env, timeout=120
    )


def pg_counts(url: str) -> dict[str, int]:
    server = PostgresServer(url, "test")
    try:
        with server.connection() as conn:
            return {
                t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                for t in LEDGER_TABLES
            }
    finally:
        server.close()


def sqlite_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {
            t: int(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in LEDGER_TABLES
        }


@pytest.fixture
def used_state(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder of a single-process hoard after writes of every kind: overwrites
    (preserved revisions), two proposals, a claim, an archive."""
    monkeypatch.delenv("HOARD_STORE_URL", raising=False)
    state = tmp_path / "single-state"
    with Hoard(vault, state) as hoard:
        texts = [note_text("Hue", f"The bridge IP is 10.0.0.{i}.") for i in range(4)]
        hoard.writes.write("tech/hue.md", texts[0], caller=OWNER)
        for before, after in itertools.pairwise(texts):
            hoard.writes.write("tech/hue.md", after, sha(before.encode()), caller=WRITER)
        hoard.writes.write("ideas/kettle.md", note_text("Kettle", "Boils."), caller=OWNER)
        hoard.writes.write("ideas/lamp.md", note_text("Lamp", "Glows."), caller=PROPOSER)
        hoard.writes.write("ideas/fan.md", note_text("Fan", "Spins."), caller=PROPOSER)
        hoard.honesty.claims.record("hue-bridge", "ip", "10.0.0.3", "tech/hue.md", caller=WRITER)
        kettle = (vault / "ideas" / "kettle.md").read_bytes()
        hoard.writes.retirement.archive("ideas/kettle.md", "archived", sha(kettle), caller=OWNER)
    return state


def history_of(hoard: Hoard, path: str) -> tuple[list[object], list[object]]:
    history = hoard.writes.retirement.history(path, caller=OWNER)
    return list(history.revisions), list(history.events)


def max_event_id(url: str) -> int:
    server = PostgresServer(url, "test")
    try:
        with server.connection() as conn:
            return int(conn.execute("SELECT max(event_id) FROM events").fetchone()[0])
    finally:
        server.close()


def test_init_on_an_empty_database_then_check_says_up_to_date(
    hoard_bin: Path, pg_url: str, tmp_path: Path
) -> None:
    init = hoard_cli(hoard_bin, tmp_path, "store", "init", "--url", pg_url)
    assert init.returncode == 0, init.stderr
    assert "ledger: schema" in init.stdout and "applied" in init.stdout

    check = hoard_cli(hoard_bin, tmp_path, "store", "check", "--url", pg_url, "--json")

    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert report["reachable"] is True and report["up_to_date"] is True
    assert {c["state"] for c in report["components"]} == {"up to date"}
    assert report["server_version"]


def test_check_before_init_says_behind_and_exits_non_zero(
    hoard_bin: Path, pg_url: str, tmp_path: Path
) -> None:
    check = hoard_cli(hoard_bin, tmp_path, "store", "check", "--url", pg_url)

    assert check.returncode == 1
    assert "behind: run `hoard store init`" in check.stdout


def test_check_on_an_unreachable_url_exits_non_zero_with_unavailable_and_no_password(
    hoard_bin: Path, tmp_path: Path
) -> None:
    url = "postgresql://hoard:s3cretpass@127.0.0.1:1/hoard"

    check = hoard_cli(hoard_bin, tmp_path, "store", "check", "--url", url)

    assert check.returncode == 2
    assert "unavailable" in check.stderr
    assert "127.0.0.1:1" in check.stderr
    assert "s3cretpass" not in check.stderr + check.stdout


def test_a_url_of_another_scheme_is_refused_by_name(hoard_bin: Path, tmp_path: Path) -> None:
    check = hoard_cli(hoard_bin, tmp_path, "store", "init", "--url", "mysql://u:pw@host/db")

    assert check.returncode == 2
    assert "postgresql://" in check.stderr and "pw@" not in check.stderr


def test_the_store_url_comes_from_the_vaults_hoard_toml(
    hoard_bin: Path, pg_url: str, vault: Path, tmp_path: Path
) -> None:
    (vault / "hoard.toml").write_text(f'[store]\nurl = "{pg_url}"\n', encoding="utf-8")

    init = hoard_cli(hoard_bin, tmp_path, "store", "init", "--vault", str(vault))

    assert init.returncode == 0, init.stderr
    assert pg_url in init.stdout


def test_migrate_copies_every_row_and_a_hoard_on_the_store_shows_the_same_history(
    hoard_bin: Path,
    pg_url: str,
    used_state: Path,
    vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Hoard(vault, used_state) as single:
        before = history_of(single, "tech/hue.md")
        proposals = sorted(p.proposal_id for p in single.write_core.records.pending_proposals())
    source = sqlite_counts(used_state / "ledger.db")
    assert all(source[t] for t in ("revisions", "events", "proposals", "claims", "kept_bytes"))

    done = hoard_cli(
        hoard_bin, tmp_path, "store", "migrate", "--from", str(used_state), "--url", pg_url
    )

    assert done.returncode == 0, done.stderr
    assert "copying revisions" in done.stderr
    assert f"verified by SHA-256: {source['revisions']} revisions" in done.stdout
    assert pg_counts(pg_url) == source
    monkeypatch.setenv("HOARD_STORE_URL", pg_url)
    with Hoard(vault, tmp_path / "replica-state", replica="b") as replica:
        assert history_of(replica, "tech/hue.md") == before
        assert (
            sorted(p.proposal_id for p in replica.write_core.records.pending_proposals())
            == proposals
        )
        current = sha((vault / "tech" / "hue.md").read_bytes())
        replica.writes.write("tech/hue.md", note_text("Hue", "Moved."), current, caller=OWNER)
        revisions, events = history_of(replica, "tech/hue.md")
    assert pg_counts(pg_url)["events"] > source["events"]
    assert len(revisions) == len(before[0]) + 1
    assert len(events) > len(before[1])
    with sqlite3.connect(used_state / "ledger.db") as db:
        copied_max = int(db.execute("SELECT max(event_id) FROM events").fetchone()[0])
    assert max_event_id(pg_url) > copied_max  # new ids continue after the copied ones


def test_migrate_refuses_a_tampered_revision_and_leaves_the_store_empty(
    hoard_bin: Path, pg_url: str, used_state: Path, tmp_path: Path
) -> None:
    with sqlite3.connect(used_state / "ledger.db") as db:
        rev_id, content = db.execute(
            "SELECT revision_id, content FROM revisions LIMIT 1"
        ).fetchone()
        tampered = bytes([content[0] ^ 1]) + content[1:]
        db.execute("UPDATE revisions SET content = ? WHERE revision_id = ?", (tampered, rev_id))

    done = hoard_cli(
        hoard_bin, tmp_path, "store", "migrate", "--from", str(used_state), "--url", pg_url
    )

    assert done.returncode == 2
    assert rev_id in done.stderr and "SHA-256" in done.stderr
    assert set(pg_counts(pg_url).values()) == {0}


def test_migrate_refuses_a_store_that_already_holds_a_ledger(
    hoard_bin: Path, pg_url: str, used_state: Path, tmp_path: Path
) -> None:
    args = ("store", "migrate", "--from", str(used_state), "--url", pg_url)
    assert hoard_cli(hoard_bin, tmp_path, *args).returncode == 0
    counts = pg_counts(pg_url)

    again = hoard_cli(hoard_bin, tmp_path, *args)

    assert again.returncode == 2
    assert "already holds" in again.stderr
    assert pg_counts(pg_url) == counts


def test_serve_names_itself_to_the_store_and_store_check_lists_it_by_its_replica_name(
    hoard_bin: Path, pg_store: str, vault: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = hoard_env(tmp_path)
    env["HOARD_STORE_URL"] = pg_store
    serve = [str(hoard_bin), "serve", "--http", f"127.0.0.1:{port}", "--vault", str(vault)]
    serve += ["--state-dir", str(tmp_path / "state-a"), "--replica", "alpha"]
    proc = subprocess.Popen(serve, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = PostgresServer(pg_store, "test")
    try:

        def connected_names() -> set[str]:
            with server.connection() as conn:
                rows = conn.execute("SELECT application_name FROM pg_stat_activity").fetchall()
            return {str(r[0]) for r in rows} & {"hoard alpha"}

        assert wait_until(connected_names, timeout=30) == {"hoard alpha"}

        def listed() -> bool:
            check = hoard_cli(hoard_bin, tmp_path, "store", "check", "--url", pg_store)
            return check.returncode == 0 and "replica alpha: seen" in check.stdout

        wait_until(listed, timeout=30)
    finally:
        server.close()
        proc.terminate()
        proc.wait(timeout=30)


def test_a_schema_from_a_newer_hoard_is_refused_by_init_and_reported_by_check(
    hoard_bin: Path, pg_store: str, tmp_path: Path
) -> None:
    server = PostgresServer(pg_store, "test")
    try:
        with server.connection() as conn:
            conn.execute("UPDATE hoard_schema SET version = 99 WHERE component = 'ledger'")
    finally:
        server.close()

    init = hoard_cli(hoard_bin, tmp_path, "store", "init", "--url", pg_store)
    check = hoard_cli(hoard_bin, tmp_path, "store", "check", "--url", pg_store)

    assert init.returncode == 2 and "newer hoard" in init.stderr
    assert check.returncode == 1 and "newer than this hoard" in check.stdout


def test_migrate_carries_callers_and_web_sessions_so_tokens_and_cookies_keep_working(
    hoard_bin: Path,
    pg_url: str,
    used_state: Path,
    vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens_file = tmp_path / "tokens.json"
    file_callers = open_callers(tokens_file)
    _, admin_token = file_callers.add("boss", "read,write,admin", "direct")
    _, agent_token = file_callers.add("scout", "read", "propose", read="tech/**")
    with Hoard(vault, used_state) as single:
        sessions, _ = single.owner_tools(file_callers)
        cookie, _ = sessions.sign_in(admin_token, "browser")

    done = hoard_cli(
        hoard_bin,
        tmp_path,
        "store",
        "migrate",
        "--from",
        str(used_state),
        "--url",
        pg_url,
        "--tokens",
        str(tokens_file),
    )

    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("HOARD_STORE_URL", pg_url)
    store_callers = open_callers()
    assert store_callers.where != str(tokens_file)
    scout = store_callers.verify(agent_token)
    assert scout is not None and scout.read_globs == ("tech/**",)
    with Hoard(vault, tmp_path / "replica-state", replica="b") as replica:
        sessions, _ = replica.owner_tools(store_callers)
        session = sessions.current(cookie)
    assert session is not None
    again = hoard_cli(
        hoard_bin,
        tmp_path,
        "store",
        "migrate",
        "--from",
        str(used_state),
        "--url",
        pg_url,
        "--tokens",
        str(tokens_file),
    )
    assert again.returncode != 0
    assert "nothing was copied" in again.stderr
