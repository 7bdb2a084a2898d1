"""Conflicts beyond an edit on both sides, end to end against a real remote: a binary file
changed on both sides, a note edited on one side and removed on the other (both ways).
Each keeps both sides, asks the owner in the inbox, and resolving keeps the one chosen."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.note import revision_of
from hoard.core.policy import OWNER
from hoard.core.sync_results import OpenConflict
from tests.app.sync.conftest import Site, git, note

BASE = b"%PDF-1.4\x00\xff base plan"
MINE = b"%PDF-1.4\x00\xfe hoard's plan"
THEIRS = b"%PDF-1.4\x00\xfd the person's plan"


def person_bytes(site: Site, rel: str, data: bytes) -> str:
    path = site.person / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    git(site.person, "add", "-A")
    git(site.person, "commit", "-qm", f"bytes of {rel}")
    git(site.person, "push", "-q", "origin", "HEAD:main")
    return git(site.person, "rev-parse", "HEAD").strip()


def badge(h: Hoard, tmp_path: Path) -> int:
    return h.owner_tools(TokenStore(tmp_path / "tokens.json"))[1].pending_count()


@pytest.mark.parametrize("keep", ["mine", "remote"])
def test_a_binary_file_changed_on_both_sides_keeps_both_asks_the_owner_and_resolving_keeps_one(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path, keep: Literal["mine", "remote"]
) -> None:
    person_bytes(site, "files/plan.pdf", BASE)
    a = hoards("a")
    (a.vault.root / "files/plan.pdf").write_bytes(MINE)  # saved by a program on the server
    person_bytes(site, "files/plan.pdf", THEIRS)
    run = a.sync.sync(caller=OWNER)
    assert run.error is None, run.error
    [conflict] = run.conflicts
    assert conflict.path == "files/plan.pdf" and conflict.sibling.endswith(".pdf")
    assert (a.vault.root / "files/plan.pdf").read_bytes() == THEIRS
    assert (a.vault.root / conflict.sibling).read_bytes() == MINE
    assert badge(a, tmp_path) == 1
    done = a.sync.resolve(conflict.sibling, keep, caller=OWNER)
    chosen = MINE if keep == "mine" else THEIRS
    assert (a.vault.root / "files/plan.pdf").read_bytes() == chosen
    assert done.revision == revision_of(chosen)
    assert not (a.vault.root / conflict.sibling).exists()
    assert a.sync.status(caller=OWNER).conflicts == [] and badge(a, tmp_path) == 0
    assert done.sibling_revision_id is not None
    kept = a.writes.retirement.history(revision_id=done.sibling_revision_id, caller=OWNER)
    assert (kept.encoding, base64.b64decode(kept.content)) == ("base64", MINE)
    assert a.sync.sync(caller=OWNER).error is None
    site.person_pull()
    assert (site.person / "files/plan.pdf").read_bytes() == chosen
    assert not (site.person / conflict.sibling).exists()


def test_a_note_edited_here_and_removed_on_the_remote_keeps_hoards_edit_and_asks_the_owner(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path
) -> None:
    a = hoards("a")
    desk = a.vault.root / "tech/desk.md"
    mine = note("Desk", "Hoard added: the desk is oak.")
    a.writes.write("tech/desk.md", mine, revision_of(desk.read_bytes()), caller=OWNER)
    site.person_commit({"tech/desk.md": None}, "drop desk")
    run = a.sync.sync(caller=OWNER)
    assert run.error is None, run.error
    [conflict] = run.conflicts
    assert conflict.path == "tech/desk.md" and not desk.exists()
    kept = (a.vault.root / conflict.sibling).read_text("utf-8")
    assert "the desk is oak" in kept and "conflict_remote_revision: removed on the remote" in kept
    assert badge(a, tmp_path) == 1
    a.sync.resolve(conflict.sibling, "mine", caller=OWNER)
    assert desk.read_text("utf-8") == mine
    assert not (a.vault.root / conflict.sibling).exists()
    assert a.sync.sync(caller=OWNER).error is None
    site.person_pull()
    assert (site.person / "tech/desk.md").read_text("utf-8") == mine


@pytest.mark.parametrize("keep", ["mine", "remote"])
def test_a_note_removed_here_and_edited_on_the_remote_comes_back_and_the_owner_is_asked(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path, keep: Literal["mine", "remote"]
) -> None:
    a = hoards("a")
    desk = a.vault.root / "tech/desk.md"
    removed = desk.read_bytes()
    a.writes.retirement.archive("tech/desk.md", "archived", revision_of(removed), caller=OWNER)
    theirs = note("Desk", "The person says: the desk is walnut.")
    site.person_commit({"tech/desk.md": theirs})
    run = a.sync.sync(caller=OWNER)
    assert run.error is None, run.error
    assert desk.read_text("utf-8") == theirs, "the remote's edit comes back"
    [conflict] = run.conflicts
    assert conflict.path == "tech/desk.md"
    sibling = (a.vault.root / conflict.sibling).read_text("utf-8")
    assert "conflict_local_revision: removed here" in sibling
    assert "See [[lamp]]." in sibling, "the note as hoard last had it"
    assert [c.path for c in a.sync.status(caller=OWNER).conflicts] == ["tech/desk.md"]
    assert badge(a, tmp_path) == 1
    a.sync.resolve(conflict.sibling, keep, caller=OWNER)
    assert not (a.vault.root / conflict.sibling).exists()
    assert desk.exists() is (keep == "remote"), "keeping hoard's side removes it again"
    assert a.sync.sync(caller=OWNER).error is None
    site.person_pull()
    assert (site.person / "tech/desk.md").exists() is (keep == "remote")
    history = a.writes.retirement.history("tech/desk.md", caller=OWNER).revisions
    assert revision_of(theirs.encode()) in [r.sha256 for r in history] or keep == "remote"


def test_a_binary_file_the_remote_changed_replaces_the_one_here(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    person_bytes(site, "files/plan.pdf", BASE)
    a = hoards("a")
    commit = person_bytes(site, "files/plan.pdf", THEIRS)
    run = a.sync.sync(caller=OWNER)
    assert (run.error, run.pulled, run.changed) == (None, commit, ["files/plan.pdf"])
    assert (a.vault.root / "files/plan.pdf").read_bytes() == THEIRS


@pytest.mark.parametrize("keep", ["mine", "remote"])
def test_a_note_renamed_differently_on_both_sides_keeps_both_names_and_asks_which(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path, keep: Literal["mine", "remote"]
) -> None:
    a = hoards("a")
    lamp = (a.vault.root / "tech/lamp.md").read_bytes()
    a.moves.move("tech/lamp.md", "tech/light.md", revision_of(lamp), False, caller=OWNER)
    git(site.person, "mv", "tech/lamp.md", "tech/hall-lamp.md")
    git(site.person, "commit", "-qm", "rename in Obsidian")
    git(site.person, "push", "-q", "origin", "HEAD:main")
    run = a.sync.sync(caller=OWNER)
    assert run.error is None, run.error
    asked = OpenConflict("tech/hall-lamp.md", "tech/light.md", "renamed")
    assert run.conflicts == [asked] and a.sync.status(caller=OWNER).conflicts == [asked]
    assert all((a.vault.root / p).exists() for p in ("tech/light.md", "tech/hall-lamp.md"))
    assert badge(a, tmp_path) == 1
    done = a.sync.resolve("tech/light.md", keep, caller=OWNER)
    kept, gone = ("tech/light.md", "tech/hall-lamp.md")[:: 1 if keep == "mine" else -1]
    assert (done.path, done.sibling, done.revision) == (kept, gone, revision_of(lamp))
    assert (a.vault.root / kept).read_bytes() == lamp and not (a.vault.root / gone).exists()
    assert a.sync.status(caller=OWNER).conflicts == [] and badge(a, tmp_path) == 0
    assert a.sync.sync(caller=OWNER).error is None
    site.person_pull()
    assert (site.person / kept).exists() and not (site.person / gone).exists()
