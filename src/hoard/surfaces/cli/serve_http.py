"""``hoard serve --http``: the port is bound before the vault is opened (a taken port is one
line, not a connection snippet followed by uvicorn's error), then the MCP endpoint, the JSON
API and the web app run under uvicorn."""

from __future__ import annotations

import argparse
import sys

from hoard.surfaces.cli.common import EXIT_ERROR, EXIT_OK, parse_http
from hoard.surfaces.cli.serving import demo_token, open_served, served
from hoard.surfaces.serve import connect_help
from hoard.surfaces.serve_http import PortUnavailable, bind_http, check_remote, serve_http


def run(args: argparse.Namespace, argv: list[str]) -> int:
    who = served(args)
    host, port = parse_http(args.http)
    check_remote(host, args.allow_remote)
    try:
        sock = bind_http(host, port)
    except PortUnavailable as exc:
        print(f"hoard: {exc}", file=sys.stderr)
        return EXIT_ERROR
    hoard = open_served(args)
    with hoard:
        help_text = connect_help(
            hoard.vault.root,
            hoard.state_dir,
            who.store.where,
            (host, port),
            demo_token(args),
            tokens_file=who.tokens_file,
        )
        print(help_text, file=sys.stderr, flush=True)
        serve_http(hoard, who.caller, who.store, host, port, sock, args.public_url)
    return EXIT_OK
