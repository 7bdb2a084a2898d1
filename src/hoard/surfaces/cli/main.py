"""The ``hoard`` command: the vault owner's surface over the service façade.

Human-readable output by default; ``--json`` prints the same structured objects as the MCP
tools. Errors print ``hoard: CODE: message`` on stderr (with ``--json``, the SPEC error object
on stdout) and exit 2; ``hoard check`` exits 1 when a note breaks the contract.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hoard import __version__
from hoard.adapters.fs.places import DEFAULT_HOST, DEFAULT_PORT
from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.core.models import to_json
from hoard.core.policy import SCOPES, WRITE_MODES
from hoard.surfaces.cli.admin import grant_command, serve_command, token_command
from hoard.surfaces.cli.bench import add_bench_parser, bench_command
from hoard.surfaces.cli.claims import add_claims_parser, claims_command
from hoard.surfaces.cli.writes import WRITE_COMMANDS, write_command

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_ERROR = 2


class Progress:
    """A one-line progress bar on a terminal's stderr; silent elsewhere."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < 200:
            return
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total}")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--vault",
        type=Path,
        default=Path("."),
        help="the vault folder (default: the current folder)",
    )
    p.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="where index.db and ledger.db live (default: under $XDG_STATE_HOME)",
    )
    p.add_argument("--json", action="store_true", help="print structured JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hoard",
        description="Search, read and keep a folder of Markdown notes.",
    )
    parser.add_argument("--version", action="version", version=f"hoard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("search", help="ranked full-text search")
    _common(p)
    p.add_argument("query", help="what to look for")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--folder", default=None, help="only notes below this folder")
    p.add_argument(
        "--mode",
        choices=("natural", "fts"),
        default="natural",
        help="natural: any text; fts: the FTS5 query grammar",
    )

    p = sub.add_parser("read", help="print a note (or a byte range of it)")
    _common(p)
    p.add_argument("path")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--max-bytes", type=int, default=None)

    p = sub.add_parser("list", help="list a folder of the vault (live, not the index)")
    _common(p)
    p.add_argument("path", nargs="?", default="")
    p.add_argument("-r", "--recursive", action="store_true")
    p.add_argument("--limit", type=int, default=500)

    p = sub.add_parser("links", help="a note's outgoing links, backlinks and broken links")
    _common(p)
    p.add_argument("path")

    add_bench_parser(sub)

    p = sub.add_parser("run-js", help="run a read_code script (a file, or - for stdin)")
    _common(p)
    p.add_argument("file", help="the script: the body of an async function; - reads stdin")

    p = sub.add_parser("index", help="bring the index up to date (or rebuild it)")
    _common(p)
    p.add_argument("--rebuild", action="store_true", help="build a fresh index and swap it in")

    p = sub.add_parser("check", help="check every note against the frontmatter contract")
    _common(p)

    p = sub.add_parser("serve", help="run the MCP server (stdio, or Streamable HTTP)")
    _common(p)
    transport = p.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve over stdio (default)")
    transport.add_argument(
        "--http",
        nargs="?",
        const=f"{DEFAULT_HOST}:{DEFAULT_PORT}",
        default=None,
        metavar="HOST:PORT",
        help=f"serve Streamable HTTP at /mcp (default {DEFAULT_HOST}:{DEFAULT_PORT})",
    )
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file")
    p.add_argument(
        "--as",
        dest="as_name",
        default=None,
        help="over stdio: act as this caller from the tokens file",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse every HTTP request (503) while the tokens file is missing, "
        "unreadable, malformed, a symlink or writable by others",
    )
    p.add_argument(
        "--allow-remote", action="store_true", help="allow binding a non-loopback address"
    )
    p.add_argument("--demo-token-file", type=Path, default=None, help=argparse.SUPPRESS)

    p = sub.add_parser("history", help="a note's preserved revisions and write events")
    _common(p)
    p.add_argument("path", nargs="?")
    p.add_argument("--revision", default=None, help="print one preserved revision's bytes")

    p = sub.add_parser("restore", help="recreate a note from a preserved revision")
    _common(p)
    p.add_argument("revision_id")
    p.add_argument("--path", default=None, help="where to recreate it (default: its old path)")

    p = sub.add_parser("proposals", help="pending write proposals")
    _common(p)

    p = sub.add_parser("confirm", help="apply a proposal (shows the diff and asks)")
    _common(p)
    p.add_argument("proposal_id")
    p.add_argument("--yes", action="store_true", help="do not ask (needed without a terminal)")

    p = sub.add_parser("reject", help="drop a proposal")
    _common(p)
    p.add_argument("proposal_id")

    p = sub.add_parser("recover", help="complete or report interrupted transactions")
    _common(p)
    p.add_argument("transaction_id", nargs="?")

    add_claims_parser(sub, _common)

    p = sub.add_parser("token", help="manage the callers allowed over HTTP")
    tsub = p.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    t = tsub.add_parser("add", help="create a caller and print its token once")
    t.add_argument("name")
    t.add_argument("--scopes", default="read", help="comma-separated: " + ",".join(SCOPES))
    t.add_argument("--write-mode", choices=WRITE_MODES, default="propose")
    t.add_argument("--tokens", type=Path, default=None)
    t.add_argument("--json", action="store_true")
    t = tsub.add_parser("list", help="list callers (never their tokens)")
    t.add_argument("--tokens", type=Path, default=None)
    t.add_argument("--json", action="store_true")
    t = tsub.add_parser("revoke", help="remove a caller; effective on its next request")
    t.add_argument("name")
    t.add_argument("--tokens", type=Path, default=None)
    t.add_argument("--json", action="store_true")

    p = sub.add_parser("grant", help="let a caller see protected notes for a while")
    _common(p)
    p.add_argument("caller", nargs="?")
    p.add_argument("glob", nargs="?")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--list", action="store_true", help="active grants and pending requests")
    p.add_argument("--revoke", metavar="GRANT_ID", help="end a grant now")
    p.add_argument("--approve", metavar="REQUEST_ID", help="approve an access request")
    return parser


def _open(args: argparse.Namespace) -> Hoard:
    bar = Progress("indexing")
    try:
        return Hoard(args.vault, args.state_dir, progress=bar)
    finally:
        bar.finish()


def _emit(args: argparse.Namespace, obj: Any, human: Callable[[Any], None]) -> None:
    if args.json:
        json.dump(to_json(obj), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        human(obj)


def _print_search(r: Any) -> None:
    if r.engine != "fts5":
        print(f"(answered by {r.engine}: {r.error})", file=sys.stderr)
    if not r.results:
        print("no matches")
    for i, h in enumerate(r.results, start=1):
        print(f"{i:2}. {h.path}  —  {h.title}  ({h.score:.3f})")
        if h.snippet:
            print(f"    {h.snippet}")
    if r.hidden_protected:
        print(f"({r.hidden_protected} protected results hidden)")
    for w in r.warnings:
        print(f"note: {w['message']}: {w.get('corrections', '')}", file=sys.stderr)


def _print_read(r: Any) -> None:
    sys.stdout.write(r.content)
    if r.truncated:
        print(
            f"\n[… {r.size - (r.next_offset or 0)} more bytes; --offset {r.next_offset}]",
            file=sys.stderr,
        )


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


def _run_js(hoard: Hoard, file: str) -> Any:
    from hoard.adapters.sandbox.pool import Sandbox
    from hoard.app.read_code import read_code
    from hoard.core.policy import OWNER

    code = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    with Sandbox(workers=1) as sandbox:
        return read_code(hoard, sandbox, code, OWNER)


def _print_run_js(r: Any) -> None:
    for line in r.logs:
        print(line, file=sys.stderr)
    print(json.dumps(r.result, ensure_ascii=False, indent=2))


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="hoard: %(levelname)s: %(message)s"
    )
    try:
        if args.command == "token":
            return token_command(args)
        if args.command == "serve":
            return serve_command(args)
        if args.command == "bench":
            return bench_command(args, list(argv) if argv is not None else sys.argv[1:])
        with _open(args) as hoard:
            cmd = args.command
            if cmd == "claims":
                return claims_command(args, hoard.honesty)
            if cmd == "grant":
                return grant_command(args, hoard)
            if cmd in WRITE_COMMANDS:
                return write_command(args, hoard)
            if cmd == "search":
                _emit(
                    args,
                    hoard.search(args.query, args.limit, args.folder, args.mode),
                    _print_search,
                )
            elif cmd == "read":
                _emit(args, hoard.read(args.path, args.offset, args.max_bytes), _print_read)
            elif cmd == "list":
                _emit(args, hoard.list(args.path, args.recursive, args.limit), _print_list)
            elif cmd == "links":
                _emit(args, hoard.links(args.path), _print_links)
            elif cmd == "run-js":
                _emit(args, _run_js(hoard, args.file), _print_run_js)
            elif cmd == "index":
                bar = Progress("rebuilding" if args.rebuild else "syncing")
                try:
                    result = hoard.reindex(args.rebuild, bar)
                finally:
                    bar.finish()
                _emit(args, result, _print_index)
            elif cmd == "check":
                checked = hoard.check()
                _emit(args, checked, _print_check)
                return EXIT_VIOLATIONS if checked.violations else EXIT_OK
    except HoardError as exc:
        if getattr(args, "json", False):
            json.dump(exc.to_object(), sys.stdout, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            print(f"hoard: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def main() -> None:
    sys.exit(run())


if (
    __name__ == "__main__"
):  # ``python -m hoard.surfaces.cli.main``: how ``hoard bench`` starts its server
    main()
