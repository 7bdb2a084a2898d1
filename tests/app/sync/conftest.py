"""Real git repositories on disk for the sync tests: a bare remote, the clones two hoards
serve, and a person's plain clone (standing for Obsidian on a laptop)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.app.sync.permit import SingleProcess
from tests.helpers import note_text, write_file

IDENTITY = {
    "GIT_AUTHOR_NAME": "person",
    "GIT_AUTHOR_EMAIL": "person@example.invalid",
    "GIT_COMMITTER_NAME": "person",
    "GIT_COMMITTER_EMAIL": "person@example.invalid",
}
CONFIG = '[git]\nremote = "origin"\npull_every_s = 0\n'


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args],
        env={**os.environ, **IDENTITY},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def note(title: str, body: str = "Text.") -> str:
    return note_text(title, body, tags="home, light")


@dataclass
class Site:
    """Repositories of one test: ``remote`` (bare), ``person`` (a plain clone) and the
    ``clone`` factory for a hoard's vault."""

    root: Path
    remote: Path
    person: Path

    def clone(self, name: str) -> Path:
        dest = self.root / name
        git(self.root, "clone", "-q", str(self.remote), str(dest))
        return dest

    def person_commit(self, files: dict[str, str | None], message: str = "edit") -> str:
        for rel, text in files.items():
            if text is None:
                git(self.person, "rm", "-q", rel)
            else:
                write_file(self.person, rel, text)
        git(self.person, "add", "-A")
        git(self.person, "commit", "-qm", message)
        git(self.person, "push", "-q", "origin", "HEAD:main")
        return git(self.person, "rev-parse", "HEAD").strip()

    def person_pull(self) -> None:
        git(self.person, "pull", "-q", "--ff-only", "origin", "main")

    def all_commit_texts(self) -> str:
        """Every file of every commit the remote holds, as one text."""
        revs = git(self.remote, "rev-list", "--all").split()
        return "".join(git(self.remote, "grep", "-h", "-I", "-e", "", r) for r in revs)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    person = tmp_path / "person"
    git(tmp_path, "clone", "-q", str(remote), str(person))
    git(person, "checkout", "-q", "-b", "main")
    write_file(person, "hoard.toml", CONFIG)
    write_file(person, "tech/lamp.md", note("Lamp", "The lamp is in the hall."))
    write_file(person, "tech/desk.md", note("Desk", "See [[lamp]]."))
    git(person, "add", "-A")
    git(person, "commit", "-qm", "start")
    git(person, "push", "-q", "origin", "main")
    return Site(tmp_path, remote, person)


@pytest.fixture
def hoards(site: Site, tmp_path: Path) -> Iterator[Callable[[str], Hoard]]:
    """Open an in-process hoard over a fresh clone named ``name`` (closed at teardown)."""
    opened: list[Hoard] = []

    def open_(name: str, *, watch: bool = False) -> Hoard:
        # Each clone is a vault of its own that one process serves: it may always sync
        # (on a shared store, the sync job's lock would let only one of the two).
        h = Hoard(
            site.clone(name), tmp_path / f"state-{name}", watch=watch, sync_permit=SingleProcess()
        )
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()
