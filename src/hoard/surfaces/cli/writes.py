"""The CLI's commands over the ledger and the write path: write and archive (the
``vault_write`` and ``vault_archive`` tools' twins), history, restore, proposals, confirm,
reject, recover. The person at the CLI is the vault owner."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.choices import ArchiveReason, values
from hoard.core.errors import InvalidArgument
from hoard.core.models import ArchiveResult, HistoryResult, RevisionContent, to_json
from hoard.surfaces.cli import edits
from hoard.surfaces.cli.common import add_common

COMMANDS = ("write", "archive", "history", "restore", "proposals", "confirm", "reject", "recover")
ARCHIVE_REASONS = values(ArchiveReason)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("write", help="create or overwrite a note (vault_write's twin)")
    add_common(p)
    p.add_argument("path")
    p.add_argument("--file", default=None, help="the note's new text (default: stdin)")
    rev = "the revision you overwrite (without it: create only, never overwrite)"
    p.add_argument("--expected-revision", default=None, help=rev)
    p.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")

    p = sub.add_parser("archive", help="retire a note; its bytes stay in the ledger")
    add_common(p)
    p.add_argument("path")
    p.add_argument("--reason", choices=ARCHIVE_REASONS, default="archived")
    p.add_argument("--revision", default=None, help="the revision you archive (default: current)")
    p.add_argument("--dry-run", action="store_true", help="check and list inbound links only")

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
    h = hoard.writes.retirement.history(args.path, args.revision, caller=hoard.owner)
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
        lines += edits.git_lines(hoard.git_history.log(h.path, caller=hoard.owner))
    _out(args, h, "\n".join(lines))
    return 0


def new_text(args: argparse.Namespace) -> str:
    """``hoard write``'s text: ``--file`` (``-`` is stdin), else stdin."""
    if args.file is None or args.file == "-":
        return sys.stdin.read()
    try:
        return Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"cannot read --file {args.file!r}: {exc}") from exc


def _write(args: argparse.Namespace, hoard: Hoard) -> int:
    r = hoard.writes.write(
        args.path, new_text(args), args.expected_revision, args.dry_run, caller=hoard.owner
    )
    edits.print_edit(args, r)
    return 0


def _archive(args: argparse.Namespace, hoard: Hoard) -> int:
    revision = args.revision or hoard.reading.read(args.path, 0, 1, caller=hoard.owner).revision
    r = hoard.writes.retirement.archive(
        args.path, args.reason, revision, caller=hoard.owner, dry_run=args.dry_run
    )
    print_archive(args, r)
    return 0


def print_archive(args: argparse.Namespace, r: ArchiveResult) -> None:
    """``hoard archive``'s output (also through a server: ``hoard --server``)."""
    if args.json:
        print(json.dumps(to_json(r), ensure_ascii=False, indent=2))
        return
    if r.status == "dry_run":
        print(f"would archive {r.path} ({r.sha256[:12]}) as {r.reason}")
    elif r.status == "proposed":
        print(f"proposed archiving {r.path}: proposal {r.proposal_id}, expires {r.expires_at}")
    else:
        print(f"{r.status} {r.path}; restore it with: hoard restore {r.revision_id}")
    for p in r.inbound_links:
        print(f"  linked from {p}", file=sys.stderr)


def _restore(args: argparse.Namespace, hoard: Hoard) -> int:
    r = hoard.writes.retirement.restore(args.revision_id, args.path, caller=hoard.owner)
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
    rec = hoard.writes.notes.recover(args.transaction_id, caller=hoard.owner)
    text = "\n".join(
        f"{t.transaction_id}: {t.state}" + (f" ({t.detail})" if t.detail else "")
        for t in rec.transactions
    )
    _out(args, rec, text or "nothing to recover")
    return 1 if any(t.state != "done" for t in rec.transactions) else 0


RUNNERS: dict[str, Callable[[argparse.Namespace, Hoard], int]] = {
    "write": _write,
    "archive": _archive,
    "history": _history,
    "restore": _restore,
    "proposals": _proposals,
    "confirm": _confirm,
    "reject": _reject,
    "recover": _recover,
}
