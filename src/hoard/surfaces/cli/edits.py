"""``hoard edit``: the owner's small edits to one note, through the same use-case as the
``vault_edit`` tool (so the same write path, gates and ledger).

- ``hoard edit PATH --append TEXT`` / ``--prepend TEXT``;
- ``--section HEADING --append-section TEXT`` / ``--replace-section TEXT``;
- ``--replace-block BLOCK TEXT`` (the paragraph or list item marked ``^BLOCK``);
- ``--replace FIND REPLACEMENT [--count N]``;
- ``--set KEY=VALUE`` (VALUE read as JSON when it parses, else the string) / ``--unset KEY``;
- ``--tag T`` / ``--untag T``;
- ``--edits JSON`` (the tool's list; ``-`` reads it from stdin), applied after the flags.

Without ``--revision`` the note's current revision is used (the owner edits what is there).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.errors import InvalidArgument
from hoard.core.models import MoveResult, TagsResult, WriteResult, to_json
from hoard.surfaces.cli.common import add_common

COMMANDS = ("edit", "tags", "mv")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("edit", help="small edits to a note (append, section, fields, tags...)")
    add_common(p)
    p.add_argument("path")
    p.add_argument("--append", action="append", default=[], metavar="TEXT")
    p.add_argument("--prepend", action="append", default=[], metavar="TEXT")
    p.add_argument("--section", metavar="HEADING", help="the heading for the section flags")
    p.add_argument("--level", type=int, default=None, help="the section heading's level")
    p.add_argument("--append-section", metavar="TEXT", help="add TEXT at the section's end")
    p.add_argument("--replace-section", metavar="TEXT", help="replace what is under HEADING")
    p.add_argument(
        "--replace-block", nargs=2, action="append", default=[], metavar=("BLOCK", "TEXT")
    )
    p.add_argument("--replace", nargs=2, action="append", default=[], metavar=("FIND", "NEW"))
    p.add_argument("--count", type=int, default=1, help="matches --replace expects (1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--unset", action="append", default=[], metavar="KEY")
    p.add_argument("--tag", action="append", default=[], metavar="TAG")
    p.add_argument("--untag", action="append", default=[], metavar="TAG")
    p.add_argument("--edits", default=None, help="a JSON list of edit objects; - for stdin")
    p.add_argument("--revision", default=None, help="the revision you edit (default: current)")
    p.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")

    p = sub.add_parser("mv", help="move or rename a note and rewrite the links to it")
    add_common(p)
    p.add_argument("path")
    p.add_argument("new_path")
    p.add_argument("--revision", default=None, help="the revision you move (default: current)")
    p.add_argument("--no-links", action="store_true", help="do not rewrite links to the note")
    p.add_argument("--dry-run", action="store_true", help="list the files and diffs only")

    p = sub.add_parser("tags", help="every tag with how many notes carry it")
    add_common(p)
    p.add_argument("--folder", default=None, help="only notes below this folder")


def add_filter_args(p: argparse.ArgumentParser) -> None:
    """``hoard search``'s field filters (the ``filters`` of ``vault_search``)."""
    p.add_argument("--type", action="append", default=[], help="frontmatter type (any of)")
    p.add_argument("--status", action="append", default=[], help="frontmatter status (any of)")
    p.add_argument("--tag", action="append", default=[], help="a tag the note must carry")
    p.add_argument("--any-tag", action="append", default=[], help="one of these tags")
    p.add_argument("--since", default=None, help="updated on or after YYYY-MM-DD")
    p.add_argument("--until", default=None, help="updated on or before YYYY-MM-DD")
    p.add_argument("--offset", type=int, default=0, help="skip this many results (paging)")


def filter_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    pairs = {
        "type": args.type,
        "status": args.status,
        "tags": args.tag,
        "tags_any": args.any_tag,
        "updated_after": args.since,
        "updated_before": args.until,
    }
    filters = {k: v for k, v in pairs.items() if v}
    return {"filters": filters or None, "offset": args.offset}


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def edits_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"op": "prepend", "text": t} for t in args.prepend]
    out += [{"op": "append", "text": t} for t in args.append]
    for op, text in (
        ("append_to_section", args.append_section),
        ("replace_section", args.replace_section),
    ):
        if text is not None:
            if not args.section:
                raise InvalidArgument(
                    f"--{op.replace('_to_', '-').replace('_', '-')} needs --section HEADING"
                )
            out.append({"op": op, "heading": args.section, "level": args.level, "text": text})
    out += [{"op": "replace_block", "block": b, "text": t} for b, t in args.replace_block]
    out += [
        {"op": "find_replace", "find": f, "replace": r, "expected_count": args.count}
        for f, r in args.replace
    ]
    if args.set:
        pairs = [s.partition("=") for s in args.set]
        if any(not k or not eq for k, eq, _ in pairs):
            raise InvalidArgument("--set takes KEY=VALUE")
        out.append({"op": "set_fields", "fields": {k: _value(v) for k, _, v in pairs}})
    if args.unset:
        out.append({"op": "remove_fields", "keys": args.unset})
    if args.tag:
        out.append({"op": "add_tags", "tags": args.tag})
    if args.untag:
        out.append({"op": "remove_tags", "tags": args.untag})
    if args.edits is not None:
        text = sys.stdin.read() if args.edits == "-" else args.edits
        try:
            listed = json.loads(text)
        except ValueError as exc:
            raise InvalidArgument(f"--edits is not JSON: {exc}") from exc
        if not isinstance(listed, list):
            raise InvalidArgument("--edits must be a JSON list of edit objects")
        out += listed
    for edit in out:
        if edit.get("level", 0) is None:
            del edit["level"]
    if not out:
        raise InvalidArgument("nothing to do: give at least one edit flag or --edits")
    return out


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    if args.command == "tags":
        print_tags(args, hoard.searching.fields.tags(args.folder, caller=hoard.owner))
        return 0
    if args.command == "mv":
        return _move(args, hoard)
    edits = edits_from_args(args)
    revision = args.revision or hoard.reading.read(args.path, 0, 1, caller=hoard.owner).revision
    print_edit(args, hoard.edits.edit(args.path, edits, revision, args.dry_run, caller=hoard.owner))
    return 0


def print_tags(args: argparse.Namespace, tags: TagsResult) -> None:
    text = "\n".join(f"{t.count:6}  {t.tag}" for t in tags.tags) or "no tags"
    print(json.dumps(to_json(tags), ensure_ascii=False, indent=2) if args.json else text)


def print_edit(args: argparse.Namespace, result: WriteResult) -> None:
    """``hoard edit``'s output (also through a server: ``hoard --server``)."""
    if args.json:
        print(json.dumps(to_json(result), ensure_ascii=False, indent=2))
    elif result.status == "dry_run":
        sys.stdout.write(result.diff or "no change\n")
        violations = result.preflight.violations if result.preflight else []
        for v in violations:
            print(f"would break the contract: {v['field']}: {v['message']}", file=sys.stderr)
    elif result.status == "proposed":
        print(f"proposed {result.path}: proposal {result.proposal_id}, expires {result.expires_at}")
    else:
        print(f"{result.status} {result.path} ({(result.revision or '')[:12]})")


def _move(args: argparse.Namespace, hoard: Hoard) -> int:
    revision = args.revision or hoard.reading.read(args.path, 0, 1, caller=hoard.owner).revision
    moved = hoard.moves.move(
        args.path, args.new_path, revision, not args.no_links, args.dry_run, caller=hoard.owner
    )
    print_move(args, moved)
    return 0


def print_move(args: argparse.Namespace, r: MoveResult) -> None:
    """``hoard mv``'s output (also through a server: ``hoard --server``)."""
    if args.json:
        print(json.dumps(to_json(r), ensure_ascii=False, indent=2))
        return
    if r.status == "dry_run":
        sys.stdout.write(r.diff or "")
    elif r.status == "proposed":
        print(f"proposed {r.path} -> {r.new_path}: proposal {r.proposal_id}")
    else:
        print(
            f"{r.status} {r.path} -> {r.new_path}"
            + (f" ({r.transaction_id})" * bool(r.transaction_id))
        )
    for f in r.files:
        print(f"  {f.role:<6} {f.path}", file=sys.stderr)
    for p in r.not_rewritten:
        print(f"  not rewritten (private): {p}", file=sys.stderr)


def git_lines(entries: list[Any]) -> list[str]:
    """``hoard history --git``: the note's commits, with the ledger events each names."""
    if not entries:
        return ["  (no git commits: not a git work tree, or none touch this note)"]
    out = []
    for e in entries:
        events = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in e.body.splitlines()
                if ln.startswith("hoard-events:")
            ),
            "",
        )
        out.append(
            f"  commit {e.commit[:12]}  {e.at}  by {e.author}  {e.subject}"
            + (f"  (ledger events {events})" if events else "")
        )
    return out
