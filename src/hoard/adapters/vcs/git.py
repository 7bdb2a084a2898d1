"""One git commit per change hoard makes, when ``[git] commit = true``.

The ``git`` binary is run as a subprocess rather than a library: it is the git the owner
already uses (their hooks, config and repository format, index locks included), it needs
no new runtime dependency, and a failure is a plain exit status and message. Only the paths
hoard changed are staged and committed (``git commit --only -- PATHS``), so edits made
outside hoard, staged or not, are never swept into its commits.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 30.0
HOARD_EMAIL_DOMAIN = "hoard.invalid"


class GitFailed(Exception):
    """A git command failed; the message is git's own (first lines of stderr)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    commit: str
    at: str
    author: str
    subject: str
    body: str


class Git:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _run(self, *args: str, env: dict[str, str] | None = None) -> str:
        try:
            proc = subprocess.run(
                ["git", "-C", str(self.root), *args],
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                env={**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})},
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitFailed(f"git {args[0]}: {exc}") from exc
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            raise GitFailed(f"git {args[0]}: " + " ".join(lines[:3])[:500])
        return proc.stdout

    def is_work_tree(self) -> bool:
        try:
            return self._run("rev-parse", "--is-inside-work-tree").strip() == "true"
        except GitFailed:
            return False

    def commit(self, paths: list[str], message: str, author: str) -> str | None:
        """Stage and commit exactly ``paths`` (added, changed or removed); ``None`` when
        they hold no change for git (e.g. a transaction finished twice)."""
        self._run("add", "--all", "--", *paths)
        changed = self._run("diff", "--cached", "--name-only", "--", *paths).strip()
        if not changed:
            return None
        who = f"{author} <{_email(author)}>"
        env = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": _email(author),
            "GIT_COMMITTER_NAME": "hoard",
            "GIT_COMMITTER_EMAIL": f"hoard@{HOARD_EMAIL_DOMAIN}",
        }
        self._run(
            "commit",
            "--quiet",
            "--only",
            f"--author={who}",
            "-m",
            message,
            "--",
            *paths,
            env=env,
        )
        return self._run("rev-parse", "HEAD").strip()

    def log(self, path: str, limit: int = 100) -> list[LogEntry]:
        out = self._run(
            "log",
            f"-n{limit}",
            "--follow",
            "--format=%H%x1f%aI%x1f%an%x1f%s%x1f%b%x1e",
            "--",
            path,
        )
        entries = []
        for record in out.split("\x1e"):
            fields = record.strip("\n").split("\x1f")
            if len(fields) == 5:
                entries.append(LogEntry(*fields))
        return entries


def _email(author: str) -> str:
    local = "".join(c if c.isalnum() or c in "-_." else "-" for c in author) or "caller"
    return f"{local}@{HOARD_EMAIL_DOMAIN}"
