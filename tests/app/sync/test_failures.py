"""Sync when things go wrong: a remote that refuses pushes, a remote that rewrote its
history, and a pull killed half-way. Writes stay durable and honest throughout."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.fs.config_file import load_config
from hoard.adapters.fs.failpoints import ENV, EXIT_CODE
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.app.sync.conftest import Site, git, note
from tests.helpers import hoard_env

REFUSE = "#!/bin/sh\necho 'pushes are refused here' >&2\nexit 1\n"


def refuse_pushes(site: Site) -> Path:
    hook = site.remote / "hooks" / "pre-receive"
    hook.write_text(REFUSE, encoding="utf-8")
    hook.chmod(0o755)
    return hook


def sha_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def quick_warning(site: Site, tmp_path: Path) -> Iterator[Hoard]:
    """A hoard whose push-failure warning comes after one second."""
    vault = site.clone("a")
    config = load_config(vault)
    config = dataclasses.replace(config, git=dataclasses.replace(config.git, warn_after_s=1))
    with Hoard(vault, tmp_path / "state-a", config) as h:
        yield h


def test_a_remote_that_refuses_pushes_is_reported_and_the_stranded_commits_go_when_it_returns(
    site: Site, quick_warning: Hoard, wait_until: Callable[..., object]
) -> None:
    a = quick_warning
    hook = refuse_pushes(site)
    first = a.writes.write("tech/one.md", note("One"), caller=OWNER)
    assert first.synced is False and first.sync_warning is None
    run = a.sync.sync(caller=OWNER)
    assert run.error is not None and "pushes are refused here" in run.error
    status = a.sync.status(caller=OWNER)
    assert status.unpushed.count == 1 and status.last_error == run.error
    assert status.push_failing_since is not None and status.last_push is None
    a.writes.write("tech/two.md", note("Two"), caller=OWNER)

    def warned() -> str | None:
        a.sync.sync(caller=OWNER)
        return a.sync.status(caller=OWNER).warning

    assert "have not reached the remote" in str(wait_until(warned))
    late = a.writes.write("tech/three.md", note("Three"), caller=OWNER)
    assert late.synced is False and "fsynced on this machine" in (late.sync_warning or "")
    assert a.sync.status(caller=OWNER).unpushed.count == 3
    hook.unlink()
    back = a.sync.sync(caller=OWNER)
    assert back.error is None and back.pushed is not None
    status = a.sync.status(caller=OWNER)
    assert status.unpushed.count == 0 and status.warning is None and status.last_error is None
    assert a.writes.write("tech/four.md", note("Four"), caller=OWNER).sync_warning is None
    site.person_pull()
    assert all((site.person / f"tech/{n}.md").exists() for n in ("one", "two", "three"))


def test_a_force_pushed_remote_is_detected_and_nothing_is_overwritten(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    site.person_commit({"tech/extra.md": note("Extra")})
    assert a.sync.sync(caller=OWNER).error is None
    lamp = a.vault.root / "tech/lamp.md"
    before = lamp.read_bytes()
    git(site.person, "reset", "-q", "--hard", "HEAD~1")
    (site.person / "tech/lamp.md").write_text(note("Lamp", "Rewritten history."), "utf-8")
    git(site.person, "commit", "-qam", "rewrite")
    git(site.person, "push", "-q", "--force", "origin", "HEAD:main")
    remote_head = git(site.remote, "rev-parse", "main").strip()
    run = a.sync.sync(caller=OWNER)
    assert run.error is not None and "rewrote its history" in run.error
    assert lamp.read_bytes() == before and (a.vault.root / "tech/extra.md").exists()
    status = a.sync.status(caller=OWNER)
    assert status.waiting is not None and remote_head[:12] in status.waiting
    assert git(site.remote, "rev-parse", "main").strip() == remote_head, "nothing pushed"
    accepted = a.sync.sync(accept_remote=True, caller=OWNER)
    assert accepted.error is None and a.sync.status(caller=OWNER).waiting is None
    assert "Rewritten history." in lamp.read_text("utf-8")
    assert (a.vault.root / "tech/extra.md").exists(), "hoard's side is kept"


def test_a_pull_killed_half_way_leaves_vault_and_ledger_consistent_and_the_next_sync_completes(
    site: Site, tmp_path: Path, hoard_bin: Path
) -> None:
    vault = site.clone("a")
    state = tmp_path / "state-a"
    site.person_commit(
        {f"tech/n{i}.md": note(f"N{i}", f"Number {i} arrives.") for i in range(4)}
        | {"tech/lamp.md": note("Lamp", "Changed by the person.")}
    )
    env = {**hoard_env(tmp_path), ENV: "sync.file"}
    cmd = [str(hoard_bin), "sync", "--vault", str(vault), "--state-dir", str(state)]
    killed = subprocess.run(cmd, env=env, capture_output=True, timeout=120, check=False)
    assert killed.returncode == EXIT_CODE, killed.stderr
    written = sorted(p.name for p in (vault / "tech").glob("*.md"))
    assert len(written) < 7, "the pull stopped half-way"
    with Hoard(vault, state) as h:
        for rel in ("tech/lamp.md", *(f"tech/{n}" for n in written)):
            history = h.writes.retirement.history(rel, caller=OWNER)
            if history.events:
                assert history.events[-1].after == sha_of(vault / rel), rel
        run = h.sync.sync(caller=OWNER)
        assert run.error is None, run.error
        assert run.conflicts == []
        assert all((vault / f"tech/n{i}.md").exists() for i in range(4))
        assert "Changed by the person." in (vault / "tech/lamp.md").read_text("utf-8")
        assert h.sync.status(caller=OWNER).unpushed.count <= 1
        assert git(vault, "status", "--porcelain") == ""
        assert [x.path for x in h.searching.search("arrives", caller=OWNER, limit=10).results]


def test_a_failing_remote_url_with_a_password_never_shows_the_password(
    site: Site, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    vault = site.clone("a")
    config = load_config(vault)
    url = "https://user:secret@127.0.0.1:9/notes.git"
    git_config = dataclasses.replace(config.git, remote=url, warn_after_s=0)
    state = tmp_path / "state-a"
    caplog.set_level(logging.DEBUG)
    with Hoard(vault, state, dataclasses.replace(config, git=git_config)) as a:
        a.writes.write("tech/one.md", note("One"), caller=OWNER)
        run = a.sync.sync(caller=OWNER)
        late = a.writes.write("tech/two.md", note("Two"), caller=OWNER)
        status = a.sync.status(caller=OWNER)
        events = a.writes.retirement.history("tech/one.md", caller=OWNER).events
    assert run.error and status.last_error == run.error and late.sync_warning
    said = [run.error, repr(run), repr(status), late.sync_warning, repr(events), caplog.text]
    said += [p.read_text("utf-8", "replace") for p in state.rglob("*.json")]
    assert status.remote == "https://***@127.0.0.1:9/notes.git"
    assert all("secret" not in s for s in said), [s for s in said if "secret" in s]
