"""``hoard serve`` over stdio: the MCP SDK's server, and nothing of HTTP or the web app.

The vault opens in a thread of its own while this process imports the MCP SDK (the SDK is
imported here, inside :func:`run`, for that): the two overlap, and the first ``tools/list``
is answered that much sooner.

The client that starts it keeps its stderr as a log: there the start is one line; the client
configuration snippets are printed only when stderr is a terminal (a person reading it).
"""

from __future__ import annotations

import argparse
import sys

from hoard.surfaces.cli.common import EXIT_OK
from hoard.surfaces.cli.serving import OpeningVault, served


def run(args: argparse.Namespace, argv: list[str]) -> int:
    who = served(args)
    opening = OpeningVault(args)
    try:
        from hoard.surfaces.serve import connect_help, serve_stdio
    except BaseException:
        opening.abandon()
        raise
    with opening.hoard() as hoard:
        if sys.stderr.isatty():
            banner = connect_help(hoard.vault.root, hoard.state_dir, who.store.where, None)
        else:
            banner = (
                f"hoard: serving {hoard.vault.root} over stdio "
                "(`hoard mcp-config` prints client configurations)"
            )
        print(banner, file=sys.stderr, flush=True)
        serve_stdio(hoard, who.caller)
    return EXIT_OK
