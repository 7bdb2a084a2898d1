"""``hoard store init|check|migrate``: the operator's side of a PostgreSQL store (see
docs/deployment.md). Loaded only for these commands: it imports psycopg."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hoard.app.callers import callers_path
from hoard.app.store_admin import (
    ComponentSchema,
    StoreCheck,
    check_store,
    configured_url,
    init_store,
    migrate_state,
)
from hoard.surfaces.cli.common import EXIT_OK, EXIT_VIOLATIONS


def _schema_object(c: ComponentSchema) -> dict[str, Any]:
    return {
        "component": c.component,
        "version": c.version,
        "known": c.known,
        "applied": c.applied,
        "state": c.state,
    }


def _schema_line(c: ComponentSchema) -> str:
    line = f"{c.component}: schema {c.version} of {c.known}, {c.state}"
    if c.applied:
        line += f" ({c.applied} migration{'s' if c.applied != 1 else ''} applied)"
    elif c.state == "behind":
        line += ": run `hoard store init`"
    return line


def _print(args: argparse.Namespace, obj: dict[str, Any], lines: list[str]) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False, indent=2))
    else:
        print("\n".join(lines))


def _init(args: argparse.Namespace, url: str) -> int:
    where, schemas = init_store(url)
    lines = [f"store: {where}", *(_schema_line(c) for c in schemas)]
    _print(args, {"store": where, "components": [_schema_object(c) for c in schemas]}, lines)
    return EXIT_OK


def _replica_lines(check: StoreCheck) -> list[str]:
    if check.replicas is None:
        return ["replicas: no roster yet (run `hoard store init`)"]
    if not check.replicas:
        return [f"replicas: none seen in the last {check.recent_s:g} s"]
    return [
        f"replica {r.name}: seen {r.age_s:.0f} s ago ({r.host}, pid {r.pid}, hoard {r.version})"
        for r in check.replicas
    ]


def _check(args: argparse.Namespace, url: str) -> int:
    check = check_store(url)
    replicas = (
        None
        if check.replicas is None
        else [
            {
                "name": r.name,
                "seen_s_ago": round(r.age_s, 1),
                "host": r.host,
                "pid": r.pid,
                "version": r.version,
            }
            for r in check.replicas
        ]
    )
    obj = {
        "store": check.where,
        "reachable": True,
        "server_version": check.server_version,
        "up_to_date": check.up_to_date,
        "components": [_schema_object(c) for c in check.components],
        "replicas": replicas,
    }
    lines = [
        f"store: {check.where} (reachable; PostgreSQL {check.server_version})",
        *(_schema_line(c) for c in check.components),
        *_replica_lines(check),
    ]
    _print(args, obj, lines)
    return EXIT_OK if check.up_to_date else EXIT_VIOLATIONS


def _progress(table: str, done: int, total: int) -> None:
    print(f"hoard: copying {table}: {done}/{total}", file=sys.stderr, flush=True)


def _migrate(args: argparse.Namespace, url: str) -> int:
    tokens = callers_path(args.tokens)
    done = migrate_state(url, args.from_dir, tokens, _progress)
    rows = sum(t.rows for t in done.copied.tables)
    verified = ", ".join(f"{n} {table}" for table, n in done.copied.verified.items())
    obj = {
        "store": done.where,
        "components": [_schema_object(c) for c in done.schemas],
        "copied": [
            {"component": t.component, "table": t.table, "rows": t.rows} for t in done.copied.tables
        ],
        "verified": done.copied.verified,
        "skipped": done.skipped,
    }
    lines = [
        f"copied {rows} rows of {args.from_dir} into {done.where}",
        *(f"  {t.component}.{t.table}: {t.rows}" for t in done.copied.tables),
        f"verified by SHA-256: {verified or 'nothing to verify'}",
        *(f"not copied: {s}" for s in done.skipped),
    ]
    _print(args, obj, lines)
    return EXIT_OK


def run(args: argparse.Namespace, argv: list[str]) -> int:
    url = configured_url(args.vault, args.url)
    actions = {"init": _init, "check": _check, "migrate": _migrate}
    return actions[args.store_command](args, url)
