"""The ``hoard`` command: the vault owner's surface over the app layer.

Human-readable output by default; ``--json`` prints the same structured objects as the MCP
tools. Errors print ``hoard: CODE: message`` on stderr (with ``--json``, the SPEC error object
on stdout) and exit 2; ``hoard check`` exits 1 when a note breaks the contract.

Each command group is a module with ``add_parsers(sub)``; the groups that work on an open
vault also have ``COMMANDS`` and ``run(args, hoard)``. A new command goes into its group's
module (or a new module added to :data:`VAULT_GROUPS`), never here.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from hoard import __version__
from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.surfaces.cli import (
    admin,
    bench,
    claims,
    edits,
    mcp_config,
    orient,
    reads,
    similar,
    sync,
    writes,
)
from hoard.surfaces.cli.common import EXIT_ERROR, open_hoard
from hoard.surfaces.cli.remote import run_remote

#: Groups whose commands open the vault: each module has COMMANDS, add_parsers and run.
VAULT_GROUPS: tuple[tuple[tuple[str, ...], Callable[[argparse.Namespace, Hoard], int]], ...] = (
    (reads.COMMANDS, reads.run),
    (writes.COMMANDS, writes.run),
    (claims.COMMANDS, claims.run),
    (edits.COMMANDS, edits.run),
    (similar.COMMANDS, similar.run),
    (orient.COMMANDS, orient.run),
    (sync.COMMANDS, sync.run),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hoard",
        description="Search, read and keep a folder of Markdown notes.",
    )
    parser.add_argument("--version", action="version", version=f"hoard {__version__}")
    parser.add_argument(
        "--server",
        default=None,
        metavar="URL",
        help="run the command through a running server's JSON API (e.g. http://host:8765)",
    )
    parser.add_argument(
        "--token-file", type=Path, default=None, help="with --server: a file holding the token"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    reads.add_parsers(sub)
    bench.add_bench_parser(sub)
    admin.add_parsers(sub)
    writes.add_parsers(sub)
    claims.add_parsers(sub)
    edits.add_parsers(sub)
    mcp_config.add_mcp_config_parser(sub)
    similar.add_parsers(sub)
    orient.add_parsers(sub)
    sync.add_parsers(sub)
    return parser


def dispatch(args: argparse.Namespace, argv: list[str]) -> int:
    if args.server:
        return run_remote(args)
    if args.command == "token":
        return admin.token_command(args)
    if args.command == "serve":
        return admin.serve_command(args)
    if args.command == "bench":
        return bench.bench_command(args, argv)
    if args.command == "mcp-config":
        return mcp_config.mcp_config_command(args)
    with open_hoard(args) as hoard:
        if args.command == "grant":
            return admin.grant_command(args, hoard)
        for commands, run_group in VAULT_GROUPS:
            if args.command in commands:
                return run_group(args, hoard)
    raise AssertionError(f"no group runs {args.command!r}")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="hoard: %(levelname)s: %(message)s"
    )
    try:
        return dispatch(args, list(argv) if argv is not None else sys.argv[1:])
    except HoardError as exc:
        if getattr(args, "json", False):
            json.dump(exc.to_object(), sys.stdout, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            print(f"hoard: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_ERROR


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":  # ``python -m hoard.surfaces.cli.main``: how ``hoard bench`` starts
    main()
