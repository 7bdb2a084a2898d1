"""The git plumbing that sync needs: fetch into a private ref, push without force, compare
trees, build commits without touching the work tree, and move a branch only when it still
holds what was read.

Like :mod:`hoard.adapters.vcs.git`, this runs the owner's own ``git`` binary as a subprocess
with a timeout: credentials come from git's configuration (credential helpers, SSH keys) and
are never passed, stored or logged by hoard; every message is scrubbed of URL userinfo.
Nothing here writes a file of the work tree: that is the write path's job.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hoard.adapters.fs.vault import STAGING_PREFIX
from hoard.adapters.vcs.git import GitFailed
from hoard.core.sync_rules import scrub

TIMEOUT_S = 60.0
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ZERO = "0" * 40

Entry = tuple[str, str]
"""A path's ``(mode, blob)`` in a tree."""


class PushRejected(GitFailed):
    """The remote refused the push because it moved on (not a fast-forward)."""


@dataclass(frozen=True, slots=True)
class CommitInfo:
    author_name: str
    author_email: str
    author_date: str
    message: str


class SyncRepo:
    def __init__(self, root: Path, timeout_s: float = TIMEOUT_S) -> None:
        self.root = root
        self.timeout_s = timeout_s

    def run(
        self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None
    ) -> bytes:
        try:
            proc = subprocess.run(
                ["git", "-C", str(self.root), *args],
                input=data,
                capture_output=True,
                timeout=self.timeout_s,
                env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})},
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise GitFailed(f"git {args[0]}: no answer within {self.timeout_s:.0f} s") from exc
        except OSError as exc:
            raise GitFailed(scrub(f"git {args[0]}: {exc}")) from exc
        if proc.returncode != 0:
            err = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(scrub(f"git {args[0]}: " + " ".join(err[:4])[:600]))
        return proc.stdout

    def text(self, *args: str, env: dict[str, str] | None = None) -> str:
        return self.run(*args, env=env).decode("utf-8", "replace").strip()

    # -- refs ------------------------------------------------------------------------------------

    def resolve(self, ref: str) -> str | None:
        try:
            return self.text("rev-parse", "--verify", "-q", ref + "^{commit}") or None
        except GitFailed:
            return None

    def branch(self) -> str | None:
        try:
            return self.text("symbolic-ref", "--short", "-q", "HEAD") or None
        except GitFailed:
            return None

    def is_ancestor(self, a: str, b: str) -> bool:
        try:
            self.run("merge-base", "--is-ancestor", a, b)
            return True
        except GitFailed:
            return False

    def merge_base(self, a: str, b: str) -> str | None:
        try:
            return self.text("merge-base", a, b) or None
        except GitFailed:
            return None

    def update_ref(self, ref: str, new: str, old: str | None) -> None:
        """Move ``ref`` to ``new`` only if it still holds ``old`` (``None``: any value)."""
        self.run("update-ref", ref, new, *([old] if old is not None else []))

    def delete_ref(self, ref: str) -> None:
        with contextlib.suppress(GitFailed):
            self.run("update-ref", "-d", ref)

    # -- the remote ------------------------------------------------------------------------------

    def fetch(self, remote: str, branch: str, into: str) -> str | None:
        """Fetch the remote's ``branch`` into the private ref ``into``; ``None`` when the
        remote has no such branch yet (a new, empty remote)."""
        try:
            self.run("fetch", "--quiet", "--no-tags", remote, f"+refs/heads/{branch}:{into}")
        except GitFailed as exc:
            if "couldn't find remote ref" in str(exc).lower():
                self.delete_ref(into)
                return None
            raise
        return self.resolve(into)

    def push(self, remote: str, commit: str, branch: str) -> None:
        try:
            self.run("push", "--quiet", "--porcelain", remote, f"{commit}:refs/heads/{branch}")
        except GitFailed as exc:
            low = str(exc).lower()
            if "non-fast-forward" in low or "fetch first" in low or "rejected" in low:
                raise PushRejected(str(exc)) from exc
            raise

    # -- trees and commits -----------------------------------------------------------------------

    def changes(self, a: str | None, b: str) -> dict[str, Entry | None]:
        """Every path that differs between commits ``a`` (``None``: nothing) and ``b``:
        its entry at ``b``, or ``None`` where ``b`` removed it. Renames are a removal and an
        addition, so each path is decided on its own."""
        base = a or EMPTY_TREE
        out = self.run("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", base, b)
        parts = out.split(b"\0")
        result: dict[str, Entry | None] = {}
        for i in range(0, len(parts) - 1, 2):
            meta = parts[i].decode().lstrip(":").split()
            if len(meta) < 5:
                continue
            path = parts[i + 1].decode("utf-8", "surrogateescape")
            result[path] = None if meta[4].startswith("D") else (meta[1], meta[3])
        return result

    def renames(self, a: str, b: str) -> dict[str, str]:
        """The files commit ``b`` has under a new name since ``a`` (git's rename detection:
        the same or mostly the same bytes): old path → new path."""
        out = self.run("diff-tree", "-r", "-z", "-M", "--diff-filter=R", "--no-commit-id", a, b)
        parts = out.split(b"\0")
        found: dict[str, str] = {}
        i = 0
        while i + 2 < len(parts):
            meta = parts[i].decode().lstrip(":").split()
            if len(meta) >= 5 and meta[4].startswith("R"):
                old, new = (p.decode("utf-8", "surrogateescape") for p in parts[i + 1 : i + 3])
                found[old] = new
            i += 3
        return found

    def entries(self, commit: str | None, paths: list[str]) -> dict[str, Entry]:
        """The ``(mode, blob)`` of each of ``paths`` that exists at ``commit``."""
        if commit is None or not paths:
            return {}
        out = self.run("ls-tree", "-z", "--full-tree", commit, "--", *paths)
        found: dict[str, Entry] = {}
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, _, path = rec.partition(b"\t")
            mode, kind, blob = meta.decode().split()
            if kind == "blob":
                found[path.decode("utf-8", "surrogateescape")] = (mode, blob)
        return found

    def blob(self, blob: str) -> bytes:
        return self.run("cat-file", "blob", blob)

    def store_blob(self, data: bytes) -> str:
        return self.run("hash-object", "-w", "--stdin", data=data).decode().strip()

    def tree_of(self, commit: str) -> str:
        return self.text("rev-parse", commit + "^{tree}")

    def first_parent_chain(self, base: str | None, tip: str) -> list[str]:
        """Commits after ``base`` up to ``tip`` along first parents, oldest first."""
        span = f"{base}..{tip}" if base else tip
        out = self.text("rev-list", "--reverse", "--first-parent", span)
        return out.split() if out else []

    def info(self, commit: str) -> CommitInfo:
        raw = self.run("log", "-1", "--format=%an%x00%ae%x00%aI%x00%B", commit).decode("utf-8")
        name, email, date, message = raw.split("\0", 3)
        return CommitInfo(name, email, date, message.rstrip("\n") + "\n")

    def tree_with(self, commit: str, changes: dict[str, Entry | None]) -> str:
        """The tree of ``commit`` with ``changes`` applied (``None`` removes a path), built in
        a private index file: neither the work tree nor the real index is touched."""
        fd, index = tempfile.mkstemp(prefix="hoard-sync-index-")
        os.close(fd)
        os.unlink(index)
        env = {"GIT_INDEX_FILE": index}
        try:
            self.run("read-tree", commit, env=env)
            lines = [
                f"0 {ZERO}\t{p}" if e is None else f"{e[0]} {e[1]}\t{p}" for p, e in changes.items()
            ]
            if lines:
                data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
                self.run("update-index", "--index-info", data=data, env=env)
            return self.text("write-tree", env=env)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(index)

    def commit_tree(
        self, tree: str, parents: list[str], message: str, author: CommitInfo | None
    ) -> str:
        env = {"GIT_COMMITTER_NAME": "hoard", "GIT_COMMITTER_EMAIL": "hoard@hoard.invalid"}
        if author is not None:
            env |= {
                "GIT_AUTHOR_NAME": author.author_name,
                "GIT_AUTHOR_EMAIL": author.author_email,
                "GIT_AUTHOR_DATE": author.author_date,
            }
        else:
            env |= {"GIT_AUTHOR_NAME": "hoard", "GIT_AUTHOR_EMAIL": "hoard@hoard.invalid"}
        args = ["commit-tree", tree, "-F", "-"]
        for p in parents:
            args += ["-p", p]
        return self.run(*args, data=message.encode("utf-8"), env=env).decode().strip()

    def reset_index(self, commit: str) -> None:
        """Make the index hold ``commit``'s tree (the work tree is left as it is)."""
        self.run("read-tree", "--reset", commit)

    # -- the work tree ---------------------------------------------------------------------------

    def dirty(self) -> list[str]:
        """Paths whose work-tree state differs from HEAD (untracked ones included, ignored
        ones and hoard's own stage files not)."""
        out = self.run(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"
        ).split(b"\0")
        paths = []
        for rec in out:
            if len(rec) > 3:
                path = rec[3:].decode("utf-8", "surrogateescape")
                if not path.rpartition("/")[2].startswith(STAGING_PREFIX):
                    paths.append(path)
        return paths

    def count_between(self, a: str | None, b: str) -> tuple[int, float | None]:
        """How many commits ``b`` has that ``a`` has not, and the oldest one's commit time."""
        span = f"{a}..{b}" if a else b
        out = self.text("log", "--format=%ct", span)
        times = [float(t) for t in out.split()]
        return len(times), (min(times) if times else None)

    def has_marker(self, commit: str) -> bool:
        """Whether any file of ``commit`` holds a line starting with a conflict marker."""
        try:
            self.run("grep", "-q", "-I", "-E", "^(<<<<<<<|>>>>>>>) ", commit)
            return True
        except GitFailed:
            return False
