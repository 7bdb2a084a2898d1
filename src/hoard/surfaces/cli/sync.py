"""``hoard sync``: pull the git remote through hoard's write path and push hoard's commits.

- ``hoard sync``: one run now (outside edits committed first); exit 1 if it failed;
- ``hoard sync --status``: the remote, branch, last pull and push, unpushed commits, open
  conflicts and the last error, changing nothing;
- ``hoard sync --accept-remote``: after the remote rewrote its history (force-push), accept
  the new history (hoard's commits since the common ancestor are replayed on it);
- ``hoard sync --resolve SIBLING --keep remote|mine``: resolve a kept conflict.
"""

from __future__ import annotations

import argparse
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.core.sync_results import SyncRunResult, SyncStatus
from hoard.surfaces.cli.common import add_common, emit

COMMANDS = ("sync",)
EXIT_FAILED = 1


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("sync", help="pull and push the git remote ([git] remote)")
    add_common(p)
    p.add_argument("--status", action="store_true", help="show the sync status only")
    p.add_argument(
        "--accept-remote",
        action="store_true",
        help="accept a remote that rewrote its history (hoard's commits are replayed on it)",
    )
    p.add_argument("--resolve", metavar="SIBLING", help="resolve this conflict copy")
    p.add_argument("--keep", choices=("remote", "mine"), default="remote", help="with --resolve")


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    if args.status:
        emit(args, hoard.sync.status(caller=OWNER), lambda s: print(status_text(s)))
        return 0
    if args.resolve:
        done = hoard.sync.resolve(args.resolve, args.keep, caller=OWNER)
        emit(args, done, lambda d: print(f"kept {d.kept} at {d.path}; archived {d.sibling}"))
        return 0
    result = hoard.sync.sync(accept_remote=args.accept_remote, caller=OWNER)
    emit(args, result, lambda r: print(run_text(r)))
    return EXIT_FAILED if result.error else 0


def run_text(r: SyncRunResult) -> str:
    lines = []
    if r.outside_commit:
        lines.append(f"committed outside edits as {r.outside_commit[:12]}")
    lines.append(f"pulled {r.pulled[:12]}" if r.pulled else "nothing new on the remote")
    lines += [f"  {p}" for p in r.changed]
    lines += [f"conflict: {c.path}: hoard's version kept as {c.sibling}" for c in r.conflicts]
    lines.append(f"pushed {r.pushed[:12]}" if r.pushed else "nothing pushed")
    if r.error:
        lines.append(f"failed: {r.error}")
    if r.status is not None:
        lines += ["", status_text(r.status)]
    return "\n".join(lines)


def status_text(s: SyncStatus) -> str:
    if not s.enabled:
        return "sync is off: no [git] remote in hoard.toml"
    pull = f"{s.last_pull.at} ({s.last_pull.commit[:12]})" if s.last_pull else "never"
    push = f"{s.last_push.at} ({s.last_push.commit[:12]})" if s.last_push else "never"
    age = s.unpushed.oldest_age_s
    lines = [
        f"remote: {s.remote}  branch: {s.branch}  push: {'on' if s.push else 'off'}",
        f"last pull: {pull}",
        f"last push: {push}",
        f"unpushed commits: {s.unpushed.count}"
        + (f" (oldest {age:.0f} s old)" if age is not None else ""),
    ]
    lines += [f"open conflict: {c.path} (hoard's version: {c.sibling})" for c in s.conflicts]
    if s.last_error:
        lines.append(f"last error ({s.last_error_at}): {s.last_error}")
    if s.waiting:
        lines.append(f"waiting: {s.waiting}")
    if s.warning:
        lines.append(f"warning: {s.warning}")
    return "\n".join(lines)
