"""Sync between two hoards and a person's clone through one bare remote: writes travel,
pulls go through the ledger and the index, and a note changed on both sides keeps both."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.core.sync_results import Unpushed
from tests.app.sync.conftest import Site, git, note


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_note_written_through_hoard_a_is_searchable_on_hoard_b_after_a_pull(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a, b = hoards("a"), hoards("b")
    written = a.writes.write("tech/router.md", note("Router", "The zyxel router."), caller=OWNER)
    assert written.synced is False
    run = a.sync.sync(caller=OWNER)
    assert run.error is None and run.pushed is not None
    assert run.status is not None and run.status.unpushed.count == 0
    pulled = b.sync.sync(caller=OWNER)
    assert pulled.changed == ["tech/router.md"]
    hits = b.searching.search("zyxel", caller=OWNER).results
    assert [h.path for h in hits] == ["tech/router.md"]
    assert git(b.vault.root, "status", "--porcelain") == ""


def test_an_edit_pushed_from_a_plain_clone_reaches_both_hoards_with_the_prior_bytes_kept(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a, b = hoards("a"), hoards("b")
    before = (a.vault.root / "tech/lamp.md").read_bytes()
    new = note("Lamp", "The lamp moved to the study.")
    commit = site.person_commit({"tech/lamp.md": new})
    for h in (a, b):
        run = h.sync.sync(caller=OWNER)
        assert run.error is None and run.pulled == commit
        assert (h.vault.root / "tech/lamp.md").read_text("utf-8") == new
        history = h.writes.retirement.history("tech/lamp.md", caller=OWNER)
        kept = [r for r in history.revisions if r.sha256 == sha(before)]
        assert kept and kept[0].caller == "git:origin" and commit[:12] in kept[0].reason
        event = history.events[-1]
        assert (event.caller, event.tool, event.decision) == ("git:origin", "git_pull", "written")
        assert [x.path for x in h.searching.search("study", caller=OWNER).results] == [
            "tech/lamp.md"
        ]


def test_a_note_removed_on_the_remote_is_archived_with_its_bytes_in_the_ledger(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    before = (a.vault.root / "tech/desk.md").read_bytes()
    site.person_commit({"tech/desk.md": None}, "drop desk")
    assert a.sync.sync(caller=OWNER).changed == ["tech/desk.md"]
    assert not (a.vault.root / "tech/desk.md").exists()
    revs = a.writes.retirement.history("tech/desk.md", caller=OWNER).revisions
    content = a.writes.retirement.history(revision_id=revs[-1].revision_id, caller=OWNER).content
    assert content.encode("utf-8") == before


def test_a_note_changed_on_both_sides_keeps_the_remote_at_the_path_and_hoards_as_a_sibling(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    current = sha((a.vault.root / "tech/lamp.md").read_bytes())
    mine = note("Lamp", "Hoard says: the lamp is blue.")
    a.writes.write("tech/lamp.md", mine, current, caller=OWNER)
    theirs = note("Lamp", "The person says: the lamp is red.")
    site.person_commit({"tech/lamp.md": theirs})
    run = a.sync.sync(caller=OWNER)
    assert run.error is None, run.error
    assert (a.vault.root / "tech/lamp.md").read_text("utf-8") == theirs
    assert len(run.conflicts) == 1
    sibling = run.conflicts[0].sibling
    assert sibling.startswith("tech/lamp.conflict-") and sibling.endswith(".md")
    kept = (a.vault.root / sibling).read_text("utf-8")
    assert "Hoard says: the lamp is blue." in kept
    assert "conflict_of: tech/lamp.md" in kept
    assert f"conflict_local_revision: {sha(mine.encode())}" in kept
    assert f"conflict_remote_revision: {sha(theirs.encode())}" in kept
    assert run.status is not None
    assert [(c.path, c.sibling) for c in run.status.conflicts] == [("tech/lamp.md", sibling)]
    assert run.pushed is not None
    texts = site.all_commit_texts()
    assert "<<<<<<<" not in texts and ">>>>>>>" not in texts
    parents = git(site.remote, "log", "--format=%P", "main").split("\n")
    assert all(len(p.split()) <= 1 for p in parents if p), "no merge commit"
    site.person_pull()
    assert (site.person / sibling).exists()


def test_resolving_a_conflict_by_keeping_hoards_version_archives_the_sibling(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    current = sha((a.vault.root / "tech/lamp.md").read_bytes())
    mine = note("Lamp", "Hoard says blue.")
    a.writes.write("tech/lamp.md", mine, current, caller=OWNER)
    site.person_commit({"tech/lamp.md": note("Lamp", "Person says red.")})
    sibling = a.sync.sync(caller=OWNER).conflicts[0].sibling
    done = a.sync.resolve(sibling, "mine", caller=OWNER)
    assert done.kept == "mine"
    assert (a.vault.root / "tech/lamp.md").read_text("utf-8") == mine
    assert not (a.vault.root / sibling).exists()
    assert a.sync.status(caller=OWNER).conflicts == []


def test_outside_edits_are_committed_first_as_their_own_commit(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    (a.vault.root / "tech/lamp.md").write_text(note("Lamp", "Edited in an editor."), "utf-8")
    run = a.sync.sync(caller=OWNER)
    assert run.outside_commit is not None and run.pushed is not None
    assert git(a.vault.root, "log", "-1", "--format=%an", run.outside_commit) == "outside-hoard\n"
    site.person_pull()
    assert "Edited in an editor." in (site.person / "tech/lamp.md").read_text("utf-8")


def test_divergent_histories_are_rebased_hoards_commits_on_the_remotes(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    a.writes.write("tech/one.md", note("One"), caller=OWNER)
    a.writes.write("tech/two.md", note("Two"), caller=OWNER)
    remote_commit = site.person_commit({"tech/three.md": note("Three")})
    run = a.sync.sync(caller=OWNER)
    assert run.error is None and run.conflicts == []
    parents = git(site.remote, "log", "--format=%P", "main").splitlines()
    assert all(len(p.split()) <= 1 for p in parents), "no merge commit"
    subjects = git(site.remote, "log", "--format=%s", f"{remote_commit}..main").splitlines()
    assert subjects == ["vault_write: tech/two.md", "vault_write: tech/one.md"]
    assert git(site.remote, "merge-base", "--is-ancestor", remote_commit, "main") == ""
    for rel in ("tech/one.md", "tech/two.md", "tech/three.md"):
        assert (Path(a.vault.root) / rel).exists()


def test_a_note_changed_here_while_a_pull_applies_is_kept_beside_the_remotes_version(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    job = a.sync.job
    theirs = note("Lamp", "The person's new lamp.")
    site.person_commit({"tech/lamp.md": theirs})
    fetched = job.repo.fetch("origin", "main", "refs/hoard/sync/remote")
    head = job.repo.resolve("HEAD")
    assert fetched is not None and head is not None
    just_now = note("Lamp", "Saved by an editor a moment ago.")
    (a.vault.root / "tech/lamp.md").write_text(just_now, "utf-8")
    job.worktree.bring(head, fetched, "test pull", caller=job.caller)
    assert (a.vault.root / "tech/lamp.md").read_text("utf-8") == theirs
    [aside] = [c for c in a.sync.conflicts() if c.path == "tech/lamp.md"]
    kept = (a.vault.root / aside.sibling).read_text("utf-8")
    assert "Saved by an editor a moment ago." in kept and "conflict_of: tech/lamp.md" in kept


def test_a_pull_that_changes_notes_moves_the_live_stamp_so_open_pages_refresh(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path
) -> None:
    a = hoards("a")
    _, desk = a.owner_tools(TokenStore(tmp_path / "tokens.json"))
    before = desk.stamp()
    assert a.sync.sync(caller=OWNER).changed == []
    assert desk.stamp() == before, "a pull that changed nothing leaves open pages alone"
    site.person_commit({"tech/lamp.md": note("Lamp", "Now on the porch.")})
    assert a.sync.sync(caller=OWNER).changed == ["tech/lamp.md"]
    assert desk.stamp() != before


def test_the_status_gives_the_oldest_unpushed_commits_age_until_it_is_pushed(
    site: Site, hoards: Callable[[str], Hoard]
) -> None:
    a = hoards("a")
    assert a.sync.status(caller=OWNER).unpushed == Unpushed(0, None)
    a.writes.write("tech/one.md", note("One"), caller=OWNER)
    time.sleep(1.1)
    a.writes.write("tech/two.md", note("Two"), caller=OWNER)
    unpushed = a.sync.status(caller=OWNER).unpushed
    assert unpushed.count == 2
    assert unpushed.oldest_age_s is not None and 1.0 <= unpushed.oldest_age_s < 60
    a.sync.sync(caller=OWNER)
    assert a.sync.status(caller=OWNER).unpushed == Unpushed(0, None)


def test_both_versions_of_a_conflict_are_in_the_ledger_and_the_inbox_badge_counts_it(
    site: Site, hoards: Callable[[str], Hoard], tmp_path: Path
) -> None:
    a = hoards("a")
    _, desk = a.owner_tools(TokenStore(tmp_path / "tokens.json"))
    assert desk.pending_count() == 0
    current = sha((a.vault.root / "tech/lamp.md").read_bytes())
    mine = note("Lamp", "Hoard says green.")
    a.writes.write("tech/lamp.md", mine, current, caller=OWNER)
    site.person_commit({"tech/lamp.md": note("Lamp", "Person says amber.")})
    sibling = a.sync.sync(caller=OWNER).conflicts[0].sibling
    assert desk.pending_count() == 1
    lamp = a.writes.retirement.history("tech/lamp.md", caller=OWNER).revisions
    assert sha(mine.encode()) in [r.sha256 for r in lamp], "hoard's bytes kept at the path"
    kept = (a.vault.root / sibling).read_bytes()
    made = a.writes.retirement.history(sibling, caller=OWNER).events[-1]
    assert (made.caller, made.after) == ("git:origin", sha(kept))
    archived = a.sync.resolve(sibling, "remote", caller=OWNER).sibling_revision_id
    assert desk.pending_count() == 0 and archived is not None
    content = a.writes.retirement.history(revision_id=archived, caller=OWNER).content
    assert content.encode("utf-8") == kept, "the sibling's exact bytes"
