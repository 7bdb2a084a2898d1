"""``hoard --server URL --token-file FILE COMMAND ...``: the CLI's read, write, edit, move and
proposal commands through a running server's JSON API (``/api/v1``), so a second machine can
use the vault without its files. Output is the same as for a local vault (``--json``: the
same objects).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from hoard.core.errors import InvalidArgument
from hoard.core.models import (
    ArchiveResult,
    LinksResult,
    ListResult,
    MoveResult,
    ReadResult,
    RunResult,
    SearchResult,
    TagsResult,
    WriteResult,
)
from hoard.surfaces.cli import edits, reads, writes
from hoard.surfaces.cli.common import EXIT_ERROR, EXIT_OK

REMOTE_COMMANDS = (
    "search",
    "read",
    "list",
    "links",
    "run-js",
    "history",
    "proposals",
    "confirm",
    "reject",
    "restore",
    "edit",
    "mv",
    "tags",
    "write",
    "archive",
)


class Refused(Exception):
    """The server refused the call: its SPEC error object and HTTP status."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body


class ApiClient:
    """A minimal JSON client of ``/api/v1`` with a bearer token (the standard library only)."""

    def __init__(self, server: str, token: str, timeout: float = 60.0) -> None:
        self.base = server.rstrip("/").removesuffix("/api/v1") + "/api/v1"
        self.token = token
        self.timeout = timeout

    def call(
        self,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        url = (
            self.base
            + urllib.parse.quote(path)
            + ("?" + urllib.parse.urlencode(query) if query else "")
        )
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            req.add_header(name, value)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                obj = json.loads(raw)
            except ValueError:
                obj = {"error": "io_error", "message": raw.decode("utf-8", "replace")[:500]}
            raise Refused(
                exc.code, obj if isinstance(obj, dict) else {"error": "io_error"}
            ) from None
        except urllib.error.URLError as exc:
            raise Refused(0, {"error": "io_error", "message": f"{url}: {exc.reason}"}) from None


def _param(value: Any) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else str(value)


def _typed(kind: Any, data: Any) -> Any:
    return TypeAdapter(kind).validate_python(data)


def _show(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else text)


def run_remote(args: argparse.Namespace) -> int:
    if args.command not in REMOTE_COMMANDS:
        raise InvalidArgument(
            f"{args.command!r} works on a local vault only; with --server: "
            + ", ".join(REMOTE_COMMANDS)
        )
    if args.token_file is None:
        raise InvalidArgument("--server needs --token-file FILE (a file holding the token)")
    token = Path(args.token_file).read_text(encoding="utf-8").strip()
    client = ApiClient(args.server, token)
    try:
        return _dispatch(args, client)
    except Refused as r:
        if args.json:
            json.dump(r.body, sys.stdout, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            print(f"hoard: {r.body.get('error')}: {r.body.get('message')}", file=sys.stderr)
        return EXIT_ERROR


def _dispatch(args: argparse.Namespace, api: ApiClient) -> int:
    cmd = args.command
    if cmd in ("edit", "mv", "tags"):
        return _fields_command(args, api)
    if cmd in ("write", "archive"):
        return _note_write(args, api)
    if cmd in ("search", "read", "list", "links", "run-js"):
        kind, data, printer = _read_command(args, api)
        if args.json:
            _show(args, data, "")
        else:
            printer(_typed(kind, data))
        return EXIT_OK
    if cmd == "history":
        if args.revision:
            data = api.call("GET", f"/revisions/{args.revision}")
            if args.json:
                _show(args, data, "")
            else:
                sys.stdout.write(data["content"])
            return EXIT_OK
        if not args.path:
            raise InvalidArgument("usage: hoard history PATH | hoard history --revision ID")
        data = api.call("GET", f"/notes/{args.path}/history")
        _show(args, data, _history_text(data))
    elif cmd == "proposals":
        data = api.call("GET", "/proposals")
        text = "\n\n".join(
            f"{p['proposal_id']}  {p['tool']} {p['path']}  by {p['caller']}, expires "
            f"{p['expires_at']}\n{p['diff']}"
            for p in data["proposals"]
        )
        _show(args, data, text or "no proposals")
    elif cmd == "confirm":
        if not args.yes and not _asked_yes(api, args.proposal_id):
            print("not applied")
            return 1
        data = api.call("POST", f"/proposals/{args.proposal_id}/confirm")
        _show(args, data, f"confirmed {args.proposal_id}: {data.get('status')} {data.get('path')}")
    elif cmd == "reject":
        data = api.call("POST", f"/proposals/{args.proposal_id}/reject")
        _show(args, data, f"rejected {data['proposal_id']}")
    else:
        data = api.call(
            "POST", "/restore", body={"revision_id": args.revision_id, "path": args.path}
        )
        _show(args, data, f"{data['status']} {data['path']} from {data['revision_id']}")
    return EXIT_OK


def _fields_command(args: argparse.Namespace, api: ApiClient) -> int:
    """``edit`` (``PATCH``) and ``mv`` (``POST .../move``) under ``If-Match``: the revision
    given, else the note's current one; ``tags``."""
    if args.command == "tags":
        edits.print_tags(
            args, _typed(TagsResult, api.call("GET", "/tags", {"folder": args.folder}))
        )
        return EXIT_OK
    revision = args.revision or api.call("GET", f"/notes/{args.path}", {"max_bytes": 1})["revision"]
    match = {"If-Match": f'"{revision}"'}
    params = {"dry_run": True} if args.dry_run else None
    if args.command == "edit":
        body: dict[str, Any] = {"edits": edits.edits_from_args(args)}
        data = api.call("PATCH", f"/notes/{args.path}", params, body, match)
        edits.print_edit(args, _typed(WriteResult, data))
        return EXIT_OK
    body = {"new_path": args.new_path, "update_links": not args.no_links}
    data = api.call("POST", f"/notes/{args.path}/move", params, body, match)
    edits.print_move(args, _typed(MoveResult, data))
    return EXIT_OK


def _note_write(args: argparse.Namespace, api: ApiClient) -> int:
    """``write`` (``PUT``: ``If-Match`` the expected revision, else ``If-None-Match: *``,
    create only) and ``archive`` (``POST .../archive``, ``If-Match`` the revision given or
    the note's current one)."""
    params = {"dry_run": True} if args.dry_run else None
    if args.command == "write":
        given = args.expected_revision
        cond = {"If-Match": f'"{given}"'} if given else {"If-None-Match": "*"}
        body = {"content": writes.new_text(args)}
        data = api.call("PUT", f"/notes/{args.path}", params, body, cond)
        edits.print_edit(args, _typed(WriteResult, data))
        return EXIT_OK
    revision = args.revision or api.call("GET", f"/notes/{args.path}", {"max_bytes": 1})["revision"]
    match = {"If-Match": f'"{revision}"'}
    data = api.call("POST", f"/notes/{args.path}/archive", params, {"reason": args.reason}, match)
    writes.print_archive(args, _typed(ArchiveResult, data))
    return EXIT_OK


def _read_command(args: argparse.Namespace, api: ApiClient) -> tuple[Any, Any, Any]:
    cmd = args.command
    if cmd == "search":
        params = {"q": args.query, "limit": args.limit, "folder": args.folder, "mode": args.mode}
        return SearchResult, api.call("GET", "/search", params), reads._print_search
    if cmd == "read":
        params = {"offset": args.offset, "max_bytes": args.max_bytes, "heading": args.heading}
        params["block"] = args.block
        return ReadResult, api.call("GET", f"/notes/{args.path}", params), reads._print_read
    if cmd == "list":
        path = f"/list/{args.path}" if args.path else "/list"
        params = {"recursive": args.recursive, "limit": args.limit}
        return ListResult, api.call("GET", path, params), reads._print_list
    if cmd == "links":
        return LinksResult, api.call("GET", f"/notes/{args.path}/links"), reads._print_links
    code = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    return RunResult, api.call("POST", "/read-code", body={"code": code}), reads._print_run_js


def _history_text(h: dict[str, Any]) -> str:
    lines = [f"{h['path']}: {len(h['revisions'])} preserved revisions, {len(h['events'])} events"]
    lines += [
        f"  revision {r['revision_id']}  {r['at']}  {r['reason']:<10} {r['size']:>8} B  "
        f"{r['sha256'][:12]}  by {r['caller']}"
        for r in h["revisions"]
    ]
    lines += [
        f"  event  {e['at']}  {e['tool']:<16} {e['decision']:<10} by {e['caller']}"
        for e in h["events"]
    ]
    return "\n".join(lines)


def _asked_yes(api: ApiClient, proposal_id: str) -> bool:
    if not sys.stdin.isatty():
        raise InvalidArgument("confirm asks on a terminal; pass --yes to confirm without one")
    pending = api.call("GET", "/proposals")["proposals"]
    for p in pending:
        if p["proposal_id"] == proposal_id:
            print(f"{p['tool']} {p['path']} proposed by {p['caller']}:\n{p['diff']}")
    return input("Apply this? [y/N] ").strip().lower() in ("y", "yes")
