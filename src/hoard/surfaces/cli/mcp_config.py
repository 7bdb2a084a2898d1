"""``hoard mcp-config``: print the exact client configuration that starts or reaches hoard.

The snippet names hoard by the absolute path of the ``hoard`` being run, so a desktop client
that does not share the shell's ``PATH`` can start it. The JSON goes to stdout (pipe it into
the client's config file); where that file lives goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hoard.surfaces.cli.common import parse_http
from hoard.surfaces.client_config import CLIENTS, WHERE, Target, snippet, stdio_args
from hoard.surfaces.defaults import DEFAULT_HOST, DEFAULT_PORT

EXIT_OK = 0


def add_mcp_config_parser(sub: Any) -> None:
    p = sub.add_parser(
        "mcp-config",
        help="print the config snippet an MCP client needs (absolute paths)",
        description="Print the JSON an MCP client needs to start hoard (stdio) or reach a "
        "running hoard serve --http, with hoard named by its absolute path.",
    )
    p.add_argument("--client", choices=CLIENTS, default=CLIENTS[0], help=f"default {CLIENTS[0]}")
    p.add_argument("--vault", type=Path, default=Path("."), help="the vault (default: here)")
    p.add_argument("--state-dir", type=Path, default=None)
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file, for --as")
    p.add_argument("--as", dest="as_name", default=None, help="the caller the server acts as")
    p.add_argument(
        "--http",
        nargs="?",
        const=f"{DEFAULT_HOST}:{DEFAULT_PORT}",
        default=None,
        metavar="HOST:PORT",
        help="reach a running hoard serve --http instead of starting one",
    )
    p.add_argument("--token", default=None, help="the bearer token for --http")
    p.add_argument("--name", default="hoard", help="the server's name in the config")


def _absolute(path: Path | None) -> Path | None:
    return None if path is None else path.expanduser().resolve()


def mcp_config_command(args: argparse.Namespace) -> int:
    if args.http is not None:
        host, port = parse_http(args.http)
        shown = f"[{host}]" if ":" in host else host
        target = Target(url=f"http://{shown}:{port}/mcp", token=args.token)
    else:
        vault = _absolute(args.vault)
        assert vault is not None
        target = Target(
            serve_args=stdio_args(
                vault, _absolute(args.state_dir), _absolute(args.tokens), args.as_name
            )
        )
    print(json.dumps(snippet(args.client, target, args.name), indent=2))
    print(f"hoard: put this in {WHERE[args.client]}", file=sys.stderr)
    return EXIT_OK
