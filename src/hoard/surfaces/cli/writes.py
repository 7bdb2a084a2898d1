"""The CLI's commands over the ledger and the write path: history, restore, proposals,
confirm, reject, recover. The person at the CLI is the vault owner."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Callable
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.errors import InvalidArgument
from hoard.core.models import HistoryResult, RevisionContent, to_json
from hoard.surfaces.cli import edits
from hoard.surfaces.cli.common import add_common

COMMANDS = ("history", "restore", "proposals", "confirm", "reject", "recover")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("history", help="a note's preserved revisions and write events")
    add_common(p)
    p.add_argument("path", nargs="?")
    p.add_argument("--revision", default=None, help="print one preserved revision's bytes")
    p.add_argument("--git", action="store_true", help="also the git log of the note")

    p = sub.add_parser("restore", help="recreate a note from a preserved revision")
    add_common(p)
    p.add_argument("revision_id")
    p.add_argument("--path", default=None, help="where to recreate it (default: its old path)")

    p = sub.add_parser("proposals", help="pending write proposals")
    add_common(p)

    p = sub.add_parser("confirm", help="apply a proposal (shows the diff and asks)")
    add_common(p)
    p.add_argument("proposal_id")
    p.add_argument("--yes", action="store_true", help="do not ask (needed without a terminal)")

    p = sub.add_parser("reject", help="drop a proposal")
    add_common(p)
    p.add_argument("proposal_id")

    p = sub.add_parser("recover", help="complete or report interrupted transactions")
    add_common(p)
    p.add_argument("transaction_id", nargs="?")


def _out(args: argparse.Namespace, obj: Any, text: str) -> None:
    if args.json:
        print(json.dumps(to_json(obj), ensure_ascii=False, indent=2))
    else:
        print(text)


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    return RUNNERS[args.command](args, hoard)


def _history(args: argparse.Namespace, hoard: Hoard) -> int:
    if not args.path and not args.revision:
        raise InvalidArgument("usage: hoard history PATH | hoard history --revision ID")
    h = hoard.writes.history(args.path, args.revision, caller=hoard.owner)
    if isinstance(h, RevisionContent):
        if args.json:
            _out(args, h, "")
        elif h.encoding == "utf-8":
            sys.stdout.write(h.content)
        else:
            sys.stdout.buffer.write(base64.b64decode(h.content))
        return 0
    assert isinstance(h, HistoryResult)
    lines = [f"{h.path}: {len(h.revisions)} preserved revisions, {len(h.events)} events"]
    lines += [
        f"  revision {r.revision_id}  {r.at}  {r.reason:<10} {r.size:>8} B  "
        f"{r.sha256[:12]}  by {r.caller}"
        for r in h.revisions
    ]
    lines += [
        f"  event  {e.at}  {e.tool:<16} {e.decision:<10} by {e.caller}"
        + (f"  ({e.reason})" if e.reason else "")
        for e in h.events
    ]
    if args.git:
        lines += edits.git_lines(hoard.git_log(h.path, caller=hoard.owner))
    _out(args, h, "\n".join(lines))
    return 0


def _restore(args: argparse.Namespace, hoard: Hoard) -> int:
    r = hoard.writes.restore(args.revision_id, args.path, caller=hoard.owner)
    _out(args, r, f"restored {r.path} from {r.revision_id} ({r.revision[:12]})")
    return 0


def _proposals(args: argparse.Namespace, hoard: Hoard) -> int:
    ps = hoard.writes.proposals(caller=hoard.owner)
    text = "\n\n".join(
        f"{p.proposal_id}  {p.tool} {p.path}  by {p.caller}, expires {p.expires_at}\n{p.diff}"
        for p in ps.proposals
    )
    _out(args, ps, text or "no proposals")
    return 0


def _confirm(args: argparse.Namespace, hoard: Hoard) -> int:
    p = hoard.writes.pending(args.proposal_id, caller=hoard.owner) if not args.yes else None
    if p is not None:
        if not sys.stdin.isatty():
            raise InvalidArgument("confirm asks on a terminal; pass --yes to confirm without one")
        print(f"{p.tool} {p.path} proposed by {p.caller}:\n{p.diff}")
        if input("Apply this? [y/N] ").strip().lower() not in ("y", "yes"):
            print("not applied")
            return 1
    r = hoard.writes.confirm(args.proposal_id, caller=hoard.owner)
    status, path = getattr(r, "status", "done"), getattr(r, "path", "")
    _out(args, r, f"confirmed {args.proposal_id}: {status} {path}")
    return 0


def _reject(args: argparse.Namespace, hoard: Hoard) -> int:
    rj = hoard.writes.reject(args.proposal_id, caller=hoard.owner)
    _out(args, rj, f"rejected {rj.proposal_id}")
    return 0


def _recover(args: argparse.Namespace, hoard: Hoard) -> int:
    rec = hoard.writes.recover(args.transaction_id, caller=hoard.owner)
    text = "\n".join(
        f"{t.transaction_id}: {t.state}" + (f" ({t.detail})" if t.detail else "")
        for t in rec.transactions
    )
    _out(args, rec, text or "nothing to recover")
    return 1 if any(t.state != "done" for t in rec.transactions) else 0


RUNNERS: dict[str, Callable[[argparse.Namespace, Hoard], int]] = {
    "history": _history,
    "restore": _restore,
    "proposals": _proposals,
    "confirm": _confirm,
    "reject": _reject,
    "recover": _recover,
}
