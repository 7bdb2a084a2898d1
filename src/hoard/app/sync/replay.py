"""Building the history a pull leaves: hoard's own commits replayed on the remote's, one by
one, path by path (git objects only: the work tree is the write path's business).

A path both sides changed since the base is a conflict: the remote's version keeps the path
(it is already shared) and hoard's version goes into a sibling note, committed last (a
note hoard removed and the remote edited: the sibling keeps the note as hoard last had it,
marked ``removed here``, so the owner is asked whether it goes again). A note both sides
renamed differently keeps both names, and the owner is asked which to keep. No
text is ever merged, so no commit can hold a conflict marker. Only when the two histories
share no commit at all is the result a merge commit (there is nothing to replay onto).
"""

from __future__ import annotations

from dataclasses import dataclass

from hoard.adapters.vcs.repo import Entry, SyncRepo
from hoard.core.note import revision_of
from hoard.core.sync_results import OpenConflict
from hoard.core.sync_rules import (
    REMOVED_HERE,
    ConflictMark,
    conflict_name,
    decide,
    marked_copy,
)


@dataclass(frozen=True, slots=True)
class Replayed:
    tip: str
    conflicts: list[OpenConflict]
    renamed: list[OpenConflict]


def _blob(e: Entry | None) -> str | None:
    return None if e is None else e[1]


def replay(repo: SyncRepo, base: str | None, head: str, fetched: str, day: str) -> Replayed:
    """The new tip of the branch: ``fetched`` plus hoard's commits since ``base`` (its
    conflicting paths left to the remote) plus one commit of kept conflict copies."""
    remote = repo.changes(base, fetched)
    local = repo.changes(base, head)
    both = sorted(remote.keys() & local.keys())
    at_base = repo.entries(base, both)
    conflicted = [
        p
        for p in both
        if decide(_blob(at_base.get(p)), _blob(local[p]), _blob(remote[p])) == "conflict"
    ]
    if base is None:
        tip = _join_unrelated(repo, head, fetched, remote, local)
    else:
        tip = fetched
        for commit in repo.first_parent_chain(base, head):
            parent = repo.resolve(commit + "^")
            delta = {p: e for p, e in repo.changes(parent, commit).items() if p not in conflicted}
            if not delta:
                continue
            tree = repo.tree_with(tip, delta)
            if tree != repo.tree_of(tip):
                tip = repo.commit_tree(tree, [tip], repo.info(commit).message, repo.info(commit))
    kept: dict[str, Entry | None] = {}
    conflicts: list[OpenConflict] = []
    for path in conflicted:
        mine = local[path]
        removed = mine is None
        if mine is None:  # removed here, edited there: the edit stands, the owner is asked
            mine = at_base[path]
        raw = repo.blob(mine[1])
        theirs = remote[path]
        mark = ConflictMark(
            path=path,
            local_revision=REMOVED_HERE if removed else revision_of(raw),
            remote_revision=None if theirs is None else revision_of(repo.blob(theirs[1])),
            local_commit=head,
            remote_commit=fetched,
        )
        sibling = conflict_name(path, day, revision_of(raw))
        data = marked_copy(raw, mark) if path.lower().endswith(".md") else raw
        kept[sibling] = (mine[0], repo.store_blob(data))
        conflicts.append(OpenConflict(path, sibling))
    if kept:
        lines = "".join(f"\n{c.sibling} keeps hoard's version of {c.path}" for c in conflicts)
        message = (
            f"sync: both sides changed {len(conflicts)} note(s); kept both\n{lines}\n\n"
            f"hoard-local: {head}\nhoard-remote: {fetched}\n"
        )
        tip = repo.commit_tree(repo.tree_with(tip, kept), [tip], message, None)
    return Replayed(tip, conflicts, _renamed_apart(repo, base, head, fetched))


def _renamed_apart(repo: SyncRepo, base: str | None, head: str, fetched: str) -> list[OpenConflict]:
    """Notes both sides renamed, to different names: both names are kept (each side's
    commits carry its own), and the owner is asked which to keep."""
    if base is None:
        return []
    here, there = repo.renames(base, head), repo.renames(base, fetched)
    return [
        OpenConflict(there[old], here[old], "renamed")
        for old in sorted(here.keys() & there.keys())
        if here[old] != there[old]
    ]


def _join_unrelated(
    repo: SyncRepo,
    head: str,
    fetched: str,
    remote: dict[str, Entry | None],
    local: dict[str, Entry | None],
) -> str:
    """Histories with no common commit: the remote's tree plus the paths only hoard has,
    as a merge commit of both (the one case where no replay is possible)."""
    only_here = {p: e for p, e in local.items() if p not in remote and e is not None}
    tree = repo.tree_with(fetched, dict(only_here))
    message = "sync: joined this vault's history with the remote's (no commit in common)\n"
    return repo.commit_tree(tree, [fetched, head], message, None)
