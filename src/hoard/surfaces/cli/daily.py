"""``hoard daily [--date YYYY-MM-DD] [--create]``: the daily note's path (and, with
``--create``, the note made from the daily template), as ``vault_daily`` answers."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.daily import DailyResult
from hoard.surfaces.cli.common import EXIT_OK, add_common, emit

COMMANDS = ("daily",)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("daily", help="the daily note for a date (today by default)")
    add_common(p)
    p.add_argument("--date", metavar="YYYY-MM-DD", default=None, help="the day (default today)")
    p.add_argument("--create", action="store_true", help="make it from the template if missing")


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    emit(args, hoard.daily(args.date, args.create, caller=hoard.owner), print_daily)
    return EXIT_OK


def print_daily(r: DailyResult) -> None:
    print(r.path)
    if r.status != "found":
        print(f"{r.status}: {r.date}", file=sys.stderr)
