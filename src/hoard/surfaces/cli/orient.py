"""``hoard recent``, ``hoard context PATH`` and ``hoard hook session-start``: what changed,
a note's neighbourhood, and the briefing an agent harness's session hook prints.

``hoard hook session-start`` is made for hooks such as Claude Code's ``SessionStart``: it
reads the harness's JSON from standard input (and ignores what it does not need), prints
the ``orient`` briefing for its caller on standard output (at most ``--max-bytes``, 2 KB by
default) and keeps that caller's cursor in the state folder, so each session is told what
changed since the previous one. It never fails a session start: an error is one line on
stderr and exit status 0, with nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hoard.app.callers import open_callers
from hoard.app.hoard import Hoard
from hoard.core.agent_results import Briefing, ContextResult, RecentResult
from hoard.core.errors import HoardError, NotFound
from hoard.core.policy import LOCAL_DEFAULT, Caller
from hoard.surfaces.cli.common import EXIT_OK, add_common, emit

COMMANDS = ("recent", "context", "hook")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("recent", help="what changed in the vault, newest first")
    add_common(p)
    p.add_argument("--since", default=None, help="only changes after this time (ISO 8601)")
    p.add_argument("--cursor", default=None, help="a cursor an earlier answer returned")
    p.add_argument("--folder", default=None, help="only notes below this folder")
    p.add_argument("--limit", type=int, default=50)
    p = sub.add_parser("context", help="a note and its neighbourhood, within a byte budget")
    add_common(p)
    p.add_argument("path", help="vault-relative note path")
    p.add_argument("--budget-bytes", type=int, default=16384)
    p = sub.add_parser("hook", help="print context for an agent harness's session hook")
    p.add_argument("event", choices=["session-start"], help="the hook being run")
    add_common(p)
    p.add_argument("--as", dest="as_name", default=None, help="the caller (tokens file name)")
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file, for --as")
    p.add_argument("--max-bytes", type=int, default=2048, help="most bytes printed")


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    if args.command == "recent":
        result = hoard.recent_changes.recent(
            caller=hoard.owner,
            since=args.since,
            cursor=args.cursor,
            folder=args.folder,
            limit=args.limit,
        )
        emit(args, result, print_recent)
    elif args.command == "context":
        context = hoard.note_context.context(
            args.path, caller=hoard.owner, budget_bytes=args.budget_bytes
        )
        emit(args, context, print_context)
    else:
        return session_start(args, hoard)
    return EXIT_OK


def hook_caller(args: argparse.Namespace, hoard: Hoard) -> Caller:
    if not args.as_name:
        return LOCAL_DEFAULT
    callers = open_callers(args.tokens, config=hoard.config)
    try:
        entry = callers.find(args.as_name)
    finally:
        callers.close()
    if entry is None:
        raise NotFound(f"--as {args.as_name!r}: no such caller in {callers.where}")
    return entry.caller()


def session_start(args: argparse.Namespace, hoard: Hoard) -> int:
    try:
        payload = sys.stdin.read() if not sys.stdin.isatty() else ""
        event = json.loads(payload) if payload.strip() else {}
        source = event.get("source") if isinstance(event, dict) else None
        brief = hoard.briefer.session_start(
            caller=hook_caller(args, hoard), max_bytes=args.max_bytes
        )
    except (HoardError, ValueError) as exc:
        print(f"hoard hook: {exc}", file=sys.stderr)
        return EXIT_OK
    if args.json:
        emit(args, brief, print_briefing)
    elif source != "compact" or brief.changes:
        print_briefing(brief)
    return EXIT_OK


def print_briefing(b: Briefing) -> None:
    sys.stdout.write(b.text)


def print_recent(r: RecentResult) -> None:
    if not r.changes:
        print("no changes")
    for c in r.changes:
        print(f"{c.at}  {c.kind:<9} {c.path}  by {c.who}: {c.summary}")
    if r.more:
        print(f"more: hoard recent --cursor {r.cursor}")
    else:
        print(f"next time: hoard recent --cursor {r.cursor}")


def print_context(r: ContextResult) -> None:
    for part in r.parts:
        print(f"== {part.label} ==")
        print(part.text)
    if r.omitted:
        print(f"(left out for the budget: {', '.join(r.omitted)})")
