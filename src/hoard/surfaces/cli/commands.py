"""The ``hoard`` command's parser and dispatch: the vault owner's surface over the app layer.

Human-readable output by default; ``--json`` prints the same structured objects as the MCP
tools. Errors print ``hoard: CODE: message`` on stderr (with ``--json``, the SPEC error object
on stdout) and exit 2; ``hoard check`` exits 1 when a note breaks the contract.

Each command group is a module with ``add_parsers(sub)``; the groups that work on an open
vault also have ``COMMANDS`` and ``run(args, hoard)``. A new command goes into its group's
module (or a new module added to :data:`VAULT_GROUPS`), never here.

:mod:`.main` (the console script) loads this module only for a command: ``hoard --version``
loads nothing of the app. This module and the groups load the app but not the server stack
(the MCP SDK, uvicorn, Starlette, Jinja) nor the benchmark: the commands that need those run
from the modules :data:`DEFERRED` names, imported by name only when that command runs; a
command against ``--server`` runs from :data:`REMOTE`, imported the same way.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Callable, Sequence

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.surfaces.cli import (
    admin,
    bench,
    claims,
    daily,
    edits,
    mcp_config,
    orient,
    reads,
    signin,
    similar,
    store,
    sync,
    writes,
)
from hoard.surfaces.cli.common import EXIT_ERROR, open_hoard
from hoard.surfaces.cli.options import add_global_options

#: Groups whose commands open the vault: each module has COMMANDS, add_parsers and run.
VAULT_GROUPS: tuple[tuple[tuple[str, ...], Callable[[argparse.Namespace, Hoard], int]], ...] = (
    (reads.COMMANDS, reads.run),
    (writes.COMMANDS, writes.run),
    (claims.COMMANDS, claims.run),
    (edits.COMMANDS, edits.run),
    (daily.COMMANDS, daily.run),
    (similar.COMMANDS, similar.run),
    (orient.COMMANDS, orient.run),
    (sync.COMMANDS, sync.run),
    (signin.COMMANDS, signin.run),
)

#: The modules of the commands that load a heavy stack, by command, each with a
#: ``run(args, argv) -> int``. ``serve`` over stdio loads the MCP SDK; ``serve --http`` also
#: uvicorn, Starlette and the web app's Jinja; ``bench`` the MCP client over HTTP; ``store``
#: psycopg.
DEFERRED: dict[str, str] = {
    "serve": "hoard.surfaces.cli.serve_stdio",
    "serve --http": "hoard.surfaces.cli.serve_http",
    "bench": "hoard.surfaces.cli.bench_run",
    "store": "hoard.surfaces.cli.store_run",
}

REMOTE = "hoard.surfaces.cli.remote"
"""The module that runs a command against ``--server``, imported only then (it loads
pydantic and an HTTP client, which a command on the local vault never needs)."""

Runner = Callable[[argparse.Namespace, list[str]], int]


def deferred_runner(args: argparse.Namespace) -> Runner | None:
    """The ``run`` of the deferred module that runs this command, imported now; ``None``
    for the commands this module runs itself."""
    key = "serve --http" if args.command == "serve" and args.http else args.command
    name = DEFERRED.get(key)
    if name is None:
        return None
    runner: Runner = importlib.import_module(name).run
    return runner


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hoard",
        description="Search, read and keep a folder of Markdown notes.",
    )
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    reads.add_parsers(sub)
    bench.add_bench_parser(sub)
    admin.add_parsers(sub)
    writes.add_parsers(sub)
    claims.add_parsers(sub)
    edits.add_parsers(sub)
    daily.add_parsers(sub)
    mcp_config.add_mcp_config_parser(sub)
    similar.add_parsers(sub)
    orient.add_parsers(sub)
    sync.add_parsers(sub)
    signin.add_parsers(sub)
    store.add_parsers(sub)
    return parser


def dispatch(args: argparse.Namespace, argv: list[str]) -> int:
    if args.server:
        run_remote: Callable[[argparse.Namespace], int] = importlib.import_module(REMOTE).run_remote
        return run_remote(args)
    if args.command == "token":
        return admin.token_command(args)
    runner = deferred_runner(args)
    if runner is not None:
        return runner(args, argv)
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
