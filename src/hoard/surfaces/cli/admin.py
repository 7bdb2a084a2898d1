"""The CLI's owner commands: ``token`` and ``grant``, and the arguments of ``serve`` (which
runs from :mod:`.serve_stdio` or :mod:`.serve_http`, so that no other command loads the
server stack)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hoard.app.callers import CallerFile, open_callers, require_known_caller
from hoard.app.hoard import Hoard
from hoard.core.errors import InvalidArgument
from hoard.core.policy import SCOPES, WRITE_MODES, TokenEntry
from hoard.surfaces.cli.common import add_common
from hoard.surfaces.defaults import DEFAULT_HOST, DEFAULT_PORT

EXIT_OK = 0


def add_parsers(sub: Any) -> None:
    """``serve``, ``token`` and ``grant``."""
    p = sub.add_parser("serve", help="run the MCP server (stdio, or Streamable HTTP)")
    add_common(p)
    transport = p.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve over stdio (default)")
    transport.add_argument(
        "--http",
        nargs="?",
        const=f"{DEFAULT_HOST}:{DEFAULT_PORT}",
        default=None,
        metavar="HOST:PORT",
        help=f"serve Streamable HTTP at /mcp (default {DEFAULT_HOST}:{DEFAULT_PORT})",
    )
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file")
    p.add_argument(
        "--as",
        dest="as_name",
        default=None,
        help="over stdio: act as this caller from the tokens file",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse every HTTP request (503) while the tokens file is missing, "
        "unreadable, malformed, a symlink or writable by others",
    )
    p.add_argument(
        "--allow-remote", action="store_true", help="allow binding a non-loopback address"
    )
    public = "the https URL a proxy serves this at: an allowed Host, the OAuth issuer"
    p.add_argument("--public-url", metavar="URL", help=public)
    p.add_argument(
        "--replica",
        default=None,
        metavar="NAME",
        help="this server's name among the replicas sharing a PostgreSQL store "
        "(default: the host name and a hash of --state-dir)",
    )
    p.add_argument("--demo-token-file", type=Path, default=None, help=argparse.SUPPRESS)

    p = sub.add_parser("token", help="manage the callers allowed over HTTP")
    tsub = p.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    t = tsub.add_parser("add", help="create a caller and print its token once")
    t.add_argument("name")
    t.add_argument("--scopes", default="read", help="comma-separated: " + ",".join(SCOPES))
    t.add_argument("--write-mode", choices=WRITE_MODES, default="propose")
    _folder_options(t)
    _callers_options(t)
    t.add_argument("--json", action="store_true")
    t = tsub.add_parser("list", help="list callers (never their tokens)")
    _callers_options(t)
    t.add_argument("--json", action="store_true")
    t = tsub.add_parser("revoke", help="remove a caller; effective on its next request")
    t.add_argument("name")
    _callers_options(t)
    t.add_argument("--json", action="store_true")

    _add_grant_parser(sub)


def _add_grant_parser(sub: Any) -> None:
    p = sub.add_parser("grant", help="let a caller see protected notes for a while")
    add_common(p)
    p.add_argument("caller", nargs="?")
    p.add_argument("glob", nargs="?")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--list", action="store_true", help="active grants and pending requests")
    p.add_argument("--revoke", metavar="GRANT_ID", help="end a grant now")
    p.add_argument("--approve", metavar="REQUEST_ID", help="approve an access request")
    p.add_argument("--tokens", type=Path, default=None, help="the tokens file (names the callers)")


def _callers_options(t: Any) -> None:
    """Where ``hoard token`` finds the callers: the tokens file (``--tokens``), or the shared
    store that ``HOARD_STORE_URL`` or ``[store] url`` of the vault's ``hoard.toml`` names."""
    t.add_argument("--tokens", type=Path, default=None, help="the tokens file")
    vault = "the vault whose hoard.toml may name a shared store (default: the current folder)"
    t.add_argument("--vault", type=Path, default=Path("."), help=vault)


def _folder_options(t: Any) -> None:
    """``hoard token add``'s ``--confirm-own``, and ``--read`` and ``--write``: the folders
    a caller is limited to."""
    own = "let it confirm its own proposals (else they wait for the owner)"
    t.add_argument("--confirm-own", action="store_true", help=own)
    reads = "comma-separated folder globs it may read (default: the whole vault)"
    t.add_argument("--read", default="", metavar="GLOBS", help=reads)
    writes = "comma-separated folder globs it may write, within --read (default: all it reads)"
    t.add_argument("--write", default="", metavar="GLOBS", help=writes)


def token_object(e: TokenEntry) -> dict[str, Any]:
    """A caller as ``hoard token list --json`` shows it (never its digest)."""
    out: dict[str, Any] = {
        "name": e.name,
        "scopes": list(e.scopes),
        "write_mode": e.write_mode,
        "confirm_own": e.confirm_own,
    }
    if e.read_globs or e.write_globs:  # only for a caller limited to folders
        out["read"], out["write"] = list(e.read_globs), list(e.write_globs)
    return out


def _folders(e: TokenEntry) -> str:
    """A caller's folder limits in words (empty when it has none)."""
    parts = [f"reads {','.join(e.read_globs)}"] if e.read_globs else []
    parts += [f"writes {','.join(e.write_globs)}"] if e.write_globs else []
    return "; " + "; ".join(parts) if parts else ""


def token_command(args: argparse.Namespace) -> int:
    store = open_callers(args.tokens, vault=args.vault)
    try:
        _token_action(args, store)
    finally:
        store.close()
    return EXIT_OK


def _token_action(args: argparse.Namespace, store: CallerFile) -> None:
    if args.token_command == "add":
        entry, token = store.add(
            args.name, args.scopes, args.write_mode, args.confirm_own, args.read, args.write
        )
        out: dict[str, Any] = {
            "name": entry.name,
            "token": token,
            "scopes": list(entry.scopes),
            "write_mode": entry.write_mode,
        }
        if entry.confirm_own:  # the contract's four keys, and these only when asked for
            out["confirm_own"] = True
        if entry.read_globs or entry.write_globs:
            out["read"], out["write"] = list(entry.read_globs), list(entry.write_globs)
        if args.json:
            print(json.dumps(out))
        else:
            print(token)
            own = "; confirms its own proposals" if entry.confirm_own else ""
            own += _folders(entry)
            print(
                f"caller {entry.name!r} ({','.join(entry.scopes)}; {entry.write_mode}{own}) "
                f"added to {store.where}. The token is shown only this once.",
                file=sys.stderr,
            )
    elif args.token_command == "list":
        entries = store.entries()
        if args.json:
            print(json.dumps({"callers": [token_object(e) for e in entries]}))
        else:
            for e in entries:
                own = "  confirms its own" if e.confirm_own else ""
                print(f"{e.name:20} {','.join(e.scopes):30} {e.write_mode}{own}{_folders(e)}")
    else:
        store.revoke(args.name)
        if args.json:
            print(json.dumps({"revoked": args.name}))
        else:
            print(f"revoked {args.name!r}", file=sys.stderr)


def grant_command(args: argparse.Namespace, hoard: Hoard) -> int:
    ledger = hoard.ledger
    if args.list:
        grants = [
            {"grant_id": g.grant_id, "caller": g.caller, "glob": g.glob, "expires_at": g.expires_at}
            for g in ledger.active_grants()
        ]
        pending = [
            {"request_id": r.request_id, "caller": r.caller, "glob": r.glob, "reason": r.reason}
            for r in ledger.pending_requests()
        ]
        if args.json:
            print(json.dumps({"grants": grants, "requests": pending}))
        else:
            for g in grants:
                print(f"grant {g['grant_id']}: {g['caller']} may see {g['glob']}")
            for r in pending:
                print(
                    f"request {r['request_id']}: {r['caller']} asks for {r['glob']}: {r['reason']}"
                )
            if not grants and not pending:
                print("no active grants, no pending requests")
        return EXIT_OK
    if args.revoke:
        ledger.revoke_grant(args.revoke)
        print(json.dumps({"revoked": args.revoke}) if args.json else f"revoked {args.revoke}")
        return EXIT_OK
    if args.approve:
        grant = ledger.approve_request(args.approve, args.minutes)
    else:
        if not args.caller or not args.glob:
            raise InvalidArgument("usage: hoard grant CALLER GLOB [--minutes N]")
        callers = open_callers(args.tokens, config=hoard.config)
        try:
            require_known_caller(callers, args.caller)
        finally:
            callers.close()
        grant = ledger.add_grant(args.caller, args.glob, args.minutes)
    out = {
        "grant_id": grant.grant_id,
        "caller": grant.caller,
        "glob": grant.glob,
        "expires_at": grant.expires_at,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"granted {grant.grant_id}: {grant.caller} may see {grant.glob} for "
            f"{args.minutes:g} minutes"
        )
    return EXIT_OK
