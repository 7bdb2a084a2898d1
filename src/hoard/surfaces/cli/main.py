"""The ``hoard`` console script: reads the options before the command, answers
``--version`` itself, and hands everything else to :mod:`.commands`, imported only then.

So ``hoard --version`` starts without the app, and each command loads what it needs: the app
for the vault commands, the MCP SDK for ``serve``, uvicorn and Jinja for ``serve --http``
(see :data:`.commands.DEFERRED`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from hoard.surfaces.cli.options import add_global_options

COMMANDS = "hoard.surfaces.cli.commands"
"""The module that parses and runs every command."""


class _Quiet(argparse.ArgumentParser):
    """A parser whose mistakes are silent: the full parser explains them."""

    def error(self, message: str) -> NoReturn:
        raise LookupError(message)


def _leading_options(argv: list[str]) -> None:
    """Parse only what comes before the command: ``--version`` prints and exits here."""
    parser = _Quiet(prog="hoard", add_help=False)
    add_global_options(parser)
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        parser.parse_known_args(argv)
    except LookupError:
        return


def run(argv: Sequence[str] | None = None) -> int:
    args = list(argv) if argv is not None else sys.argv[1:]
    _leading_options(args)
    runner: Callable[[Sequence[str] | None], int] = importlib.import_module(COMMANDS).run
    return runner(argv)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":  # ``python -m hoard.surfaces.cli.main``: how ``hoard bench`` starts
    main()
