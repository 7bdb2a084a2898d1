"""The CLI's read commands: ``search``, ``read``, ``list``, ``links``, ``run-js``,
``index`` and ``check``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.choices import SearchMode, SemanticChoice, values
from hoard.core.plain import plain_text
from hoard.surfaces.cli import edits
from hoard.surfaces.cli.common import EXIT_OK, EXIT_VIOLATIONS, Progress, add_common, emit

COMMANDS = ("search", "read", "list", "links", "run-js", "index", "check")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("search", help="ranked full-text search")
    add_common(p)
    p.add_argument("query", nargs="?", default="", help="what to look for (none: list by filters)")
    p.add_argument("--limit", type=int, default=10)
    edits.add_filter_args(p)
    p.add_argument("--folder", default=None, help="only notes below this folder")
    p.add_argument(
        "--mode",
        choices=values(SearchMode),
        default="natural",
        help="natural: any text; fts: the FTS5 query grammar; typeahead: as you type",
    )
    p.add_argument(
        "--semantic",
        choices=values(SemanticChoice),
        default="auto",
        help="blend in the local semantic model (auto: as hoard.toml's [semantic] says)",
    )

    p = sub.add_parser("read", help="print a note (or a byte range of it)")
    add_common(p)
    p.add_argument("path")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--max-bytes", type=int, default=None)
    part = p.add_mutually_exclusive_group()
    part.add_argument("--heading", help="only the section under HEADING (A#B: B inside A)")
    part.add_argument("--block", help="only the paragraph or list item marked ^BLOCK")
    part.add_argument("--page", type=int, help="an attachment's (a PDF's...) page N only")

    p = sub.add_parser("list", help="list a folder of the vault (live, not the index)")
    add_common(p)
    p.add_argument("path", nargs="?", default="")
    p.add_argument("-r", "--recursive", action="store_true")
    p.add_argument("--limit", type=int, default=500)

    p = sub.add_parser("links", help="a note's outgoing links, backlinks and broken links")
    add_common(p)
    p.add_argument("path")

    p = sub.add_parser("run-js", help="run a read_code script (a file, or - for stdin)")
    add_common(p)
    p.add_argument("file", help="the script: the body of an async function; - reads stdin")

    p = sub.add_parser("index", help="bring the index up to date (or rebuild it)")
    add_common(p)
    p.add_argument("--rebuild", action="store_true", help="build a fresh index and swap it in")

    p = sub.add_parser("check", help="check every note against the frontmatter contract")
    add_common(p)


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    cmd = args.command
    if cmd == "search":
        found = hoard.searching.search(
            args.query,
            args.limit,
            args.folder,
            args.mode,
            semantic=args.semantic,
            caller=hoard.owner,
            **edits.filter_kwargs(args),
        )
        emit(args, found, _print_search)
    elif cmd == "read":
        part = {"heading": args.heading, "block": args.block, "page": args.page}
        read = hoard.reading.read(
            args.path, args.offset, args.max_bytes, caller=hoard.owner, **part
        )
        emit(args, read, _print_read)
    elif cmd == "list":
        emit(
            args,
            hoard.reading.list(args.path, args.recursive, args.limit, caller=hoard.owner),
            _print_list,
        )
    elif cmd == "links":
        emit(args, hoard.reading.links(args.path, caller=hoard.owner), _print_links)
    elif cmd == "run-js":
        code = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
        emit(args, hoard.code.run(code, caller=hoard.owner), _print_run_js)
    elif cmd == "index":
        bar = Progress("rebuilding" if args.rebuild else "syncing")
        reading = Progress("reading attachments")
        try:
            result = hoard.maintenance.reindex(args.rebuild, bar, reading)
        finally:
            bar.finish()
            reading.finish()
        emit(args, result, _print_index)
        _build_vectors(hoard)
    elif cmd == "check":
        checked = hoard.maintenance.check()
        emit(args, checked, _print_check)
        return EXIT_VIOLATIONS if checked.violations else EXIT_OK
    return EXIT_OK


def _build_vectors(hoard: Hoard) -> None:
    """With ``[semantic] enabled = true``, the vectors follow the index: the notes
    whose vector is missing or stale are embedded now, a line on stderr says what happened."""
    bar = Progress("embedding")
    try:
        built = hoard.similarity.build_vectors(bar)
    finally:
        bar.finish()
    if built is None:
        return
    if built.skipped:
        print(f"semantic: skipped, {built.skipped}", file=sys.stderr)
        return
    print(
        f"semantic: {built.embedded} notes embedded, {built.vectors} of {built.notes} notes"
        f" have vectors ({built.seconds:.1f} s)",
        file=sys.stderr,
    )


def _print_search(r: Any) -> None:
    if r.error:
        print(f"(answered by {r.engine}: {r.error})", file=sys.stderr)
    if not r.results:
        print("no matches")
    for i, h in enumerate(r.results, start=1):
        where = f", page {h.page}" if getattr(h, "page", None) else ""
        print(f"{i:2}. {h.path}  —  {h.title}  ({h.score:.3f}{where})")
        if h.snippet:
            print(f"    {plain_text(h.snippet)}")
    if r.hidden_protected:
        print(f"({r.hidden_protected} protected results hidden)")
    for w in r.warnings:
        print(f"note: {w['message']} {w.get('corrections', '')}".rstrip(), file=sys.stderr)


def _print_read(r: Any) -> None:
    sys.stdout.write(r.content)
    if r.truncated:
        print(
            f"\n[… {_length(r) - (r.next_offset or 0)} more bytes; --offset {r.next_offset}]",
            file=sys.stderr,
        )


def _length(r: Any) -> int:
    """The bytes that ``offset`` counts over: the part's when one was read, else the note's."""
    part = r.part
    if part is None:
        return int(r.size)
    if isinstance(part, dict):
        return int(part["end"]) - int(part["start"])
    return int(part.end) - int(part.start)


def _print_list(r: Any) -> None:
    for e in r.entries:
        suffix = "/" if e.kind == "folder" else ""
        size = "" if e.kind == "folder" else f"{e.size:>9}"
        print(f"{size:>9}  {e.path}{suffix}")
    if r.truncated:
        print("(truncated: raise --limit)", file=sys.stderr)


def _print_links(r: Any) -> None:
    print(f"{r.path}")
    print(f"  outgoing ({len(r.outgoing)}):")
    for o in r.outgoing:
        where = o.resolved_path if not o.broken else "BROKEN"
        print(f"    [[{o.target}]] -> {where}")
    print(f"  backlinks ({len(r.backlinks)}):")
    for b in r.backlinks:
        print(f"    {b}")


def _print_index(r: Any) -> None:
    verb = "rebuilt" if r.rebuilt else "synced"
    print(
        f"{verb}: {r.notes} notes ({r.added} added, {r.updated} updated, {r.removed} removed,"
        f" {r.failed} unreadable) in {r.elapsed_ms:.0f} ms"
    )
    a = r.attachments
    if a is None:
        return
    print(
        f"attachments: {a.files} files, {a.pages} pages ({a.added} added, {a.updated} updated,"
        f" {a.removed} removed, {a.extracted} read) in {a.elapsed_ms:.0f} ms"
    )
    for issue in a.problems:
        print(f"  not indexed: {issue.path}: {issue.problem}: {issue.detail}")


def _print_check(r: Any) -> None:
    current = None
    for v in r.violations:
        if v.path != current:
            current = v.path
            print(v.path)
        print(f"  {v.field}: {v.rule}: {v.message}")
    for b in r.broken_links:
        print(f"broken link: {b.path}:{b.line} -> [[{b.target}]]")
    bad = len({v.path for v in r.violations})
    print(
        f"checked {r.checked} notes ({r.private_skipped} private skipped): "
        f"{bad} with violations, {len(r.violations)} violations, "
        f"{len(r.broken_links)} broken links"
    )


def _print_run_js(r: Any) -> None:
    for line in r.logs:
        print(line, file=sys.stderr)
    print(json.dumps(r.result, ensure_ascii=False, indent=2))
