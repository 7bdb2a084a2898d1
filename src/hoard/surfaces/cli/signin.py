"""``hoard signin-link``: a fresh one-time sign-in link for the web app of a server that is
already running over this vault's state (the code goes into the state folder's ``web.db``,
or the replicas' shared store, where the running server looks it up), so a lost or used link
needs no restart."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hoard.app.callers import open_callers
from hoard.app.hoard import Hoard
from hoard.app.sessions import CODE_TTL_SECONDS
from hoard.core.times import iso
from hoard.surfaces.cli.common import EXIT_OK, add_common, parse_http
from hoard.surfaces.defaults import DEFAULT_HOST, DEFAULT_PORT

COMMANDS = ("signin-link",)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "signin-link", help="print a fresh one-time sign-in link for the running web app"
    )
    add_common(p)
    p.add_argument(
        "--http",
        default=f"{DEFAULT_HOST}:{DEFAULT_PORT}",
        metavar="HOST:PORT",
        help="where `hoard serve --http` listens (default %(default)s)",
    )
    p.add_argument("--public-url", metavar="URL", help="the https URL a proxy serves it at")
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file")


def site_of(args: argparse.Namespace) -> str:
    """The address a browser opens: ``--public-url``, else ``http://HOST:PORT``."""
    host, port = parse_http(args.http)
    shown = f"[{host}]" if ":" in host else host
    return str(args.public_url or f"http://{shown}:{port}").rstrip("/")


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    callers = open_callers(args.tokens, config=hoard.config)
    try:
        code = hoard.owner_tools(callers)[0].issue_code()
    finally:
        callers.close()
    link = f"{site_of(args)}/signin/link?code={code}"
    if args.json:
        print(json.dumps({"link": link, "expires_at": iso(time.time() + CODE_TTL_SECONDS)}))
        return EXIT_OK
    print(link)
    minutes = CODE_TTL_SECONDS // 60
    print(
        f"hoard: a one-time link, good for {minutes} minutes, for the server running over "
        f"{hoard.state_dir}; older links stay valid until used or expired.",
        file=sys.stderr,
    )
    return EXIT_OK
