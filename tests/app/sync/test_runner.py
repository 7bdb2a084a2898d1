"""The sync job on a running server: hoard's commits are pushed soon after a change (a
burst of writes as one push), and the timer pulls what others pushed."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.fs.config_file import load_config
from hoard.app.hoard import Hoard
from hoard.app.sync.permit import SingleProcess
from hoard.app.sync.runner import QUIET_S
from hoard.core.policy import OWNER
from tests.app.sync.conftest import Site, git, note


@pytest.fixture
def serving(site: Site, tmp_path: Path) -> Iterator[Callable[[str], Hoard]]:
    """Hoards as a server runs them (watching, the sync thread on), pulling every second."""
    opened: list[Hoard] = []

    def open_(name: str) -> Hoard:
        vault = site.clone(name)
        config = load_config(vault)
        git_config = dataclasses.replace(config.git, pull_every_s=1)
        # each clone is a vault of its own, one process each: it may always sync
        h = Hoard(
            vault,
            tmp_path / f"state-{name}",
            dataclasses.replace(config, git=git_config),
            watch=True,
            sync_permit=SingleProcess(),
        )
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


def test_a_burst_of_writes_on_a_is_pushed_in_few_pushes_and_b_pulls_it_on_its_timer(
    site: Site, serving: Callable[[str], Hoard], wait_until: Callable[..., object]
) -> None:
    log = site.root / "pushes.log"
    hook = site.remote / "hooks" / "post-receive"
    hook.write_text(f"#!/bin/sh\necho push >> '{log}'\n", encoding="utf-8")
    hook.chmod(0o755)
    a, b = serving("a"), serving("b")
    for i in range(5):
        a.writes.write(f"tech/burst-{i}.md", note(f"Burst {i}", "A quokka note."), caller=OWNER)
    wait_until(lambda: a.sync.status(caller=OWNER).unpushed.count == 0, timeout=60)
    assert len(log.read_text().splitlines()) <= 2, "a burst is batched"
    remote_files = git(site.remote, "ls-tree", "-r", "--name-only", "main")
    assert all(f"tech/burst-{i}.md" in remote_files for i in range(5))

    def on_b() -> bool:
        return len(b.searching.search("quokka", caller=OWNER, limit=10).results) == 5

    wait_until(on_b, timeout=60)


def test_a_burst_of_writes_reaches_the_remote_within_10_seconds_of_its_first_write(
    site: Site, hoards: Callable[..., Hoard]
) -> None:
    a = hoards("a", watch=True)
    start = time.monotonic()
    for i in range(3):
        a.writes.write(f"tech/soon-{i}.md", note(f"Soon {i}"), caller=OWNER)
    while "tech/soon-2.md" not in git(site.remote, "ls-tree", "-r", "--name-only", "main"):
        assert time.monotonic() - start <= 10.0, "pushed within 10 s of the burst"
        time.sleep(0.05)


class Refused:
    """A permit held by another process: this one may never sync."""

    def may_sync(self) -> bool:
        return False


def test_a_permit_that_says_no_means_the_process_neither_pulls_nor_pushes(
    site: Site, tmp_path: Path
) -> None:
    vault = site.clone("a")
    commit = site.person_commit({"tech/lamp.md": note("Lamp", "Moved by the person.")})
    with Hoard(vault, tmp_path / "state-a", watch=True, sync_permit=Refused()) as a:
        a.writes.write("tech/held.md", note("Held"), caller=OWNER)
        run = a.sync.sync(caller=OWNER)
        time.sleep(QUIET_S + 1)  # past the time the push thread would have pushed
        assert (run.pulled, run.pushed, run.changed) == (None, None, [])
        assert "Moved by the person." not in (vault / "tech/lamp.md").read_text("utf-8")
        assert git(site.remote, "rev-parse", "main").strip() == commit
        assert a.sync.status(caller=OWNER).last_pull is None
