"""The options ``hoard`` takes before its command (``--version``, ``--server``,
``--token-file``), in a module that imports nothing of the app: :mod:`.main` answers
``--version`` with them alone."""

from __future__ import annotations

import argparse
from pathlib import Path

from hoard import __version__


def add_global_options(parser: argparse.ArgumentParser) -> None:
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
