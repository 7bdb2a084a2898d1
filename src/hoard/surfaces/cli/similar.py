"""``hoard similar PATH``: the notes nearest in meaning to a note.

A one-shot process has no background builder: it first embeds the notes whose vector is
missing or stale (all of them the first time; a few seconds for a small vault, minutes for
a large one, with a progress line on a terminal), then answers.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.models import SimilarResult
from hoard.surfaces.cli.common import EXIT_OK, Progress, add_common, emit

COMMANDS = ("similar",)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("similar", help="the notes closest in meaning to a note (semantic)")
    add_common(p)
    p.add_argument("path", help="vault-relative note path")
    p.add_argument("--limit", type=int, default=10)


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    bar = Progress("embedding")
    try:
        hoard.similarity.build(bar)
    finally:
        bar.finish()
    emit(args, hoard.similarity.similar(args.path, args.limit, caller=hoard.owner), print_similar)
    return EXIT_OK


def print_similar(r: SimilarResult) -> None:
    for w in r.warnings:
        print(f"note: {w['message']}", file=sys.stderr)
    if not r.results and not r.warnings:
        print("no similar notes")
    for i, h in enumerate(r.results, start=1):
        print(f"{i:2}. {h.path}  —  {h.title}  ({h.score:.3f})")
