"""The arguments of ``hoard store init|check|migrate``: the operator's commands for a
PostgreSQL store shared by replicas. They run from :mod:`.store_run`, imported only then
(it loads psycopg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _where(p: Any) -> None:
    p.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="the store (default: HOARD_STORE_URL, else [store] url of the vault's hoard.toml)",
    )
    p.add_argument(
        "--vault",
        type=Path,
        default=Path("."),
        help="the vault whose hoard.toml names the store (default: the current folder)",
    )
    p.add_argument("--json", action="store_true", help="print structured JSON")


def add_parsers(sub: Any) -> None:
    """``store`` and its actions."""
    p = sub.add_parser("store", help="set up, check or fill the PostgreSQL store of replicas")
    ssub = p.add_subparsers(dest="store_command", required=True, metavar="ACTION")
    s = ssub.add_parser("init", help="create or upgrade the store's schema")
    _where(s)
    s = ssub.add_parser(
        "check", help="reachability, schema versions and replicas seen; exit 1 if out of date"
    )
    _where(s)
    s = ssub.add_parser("migrate", help="copy a single process's state folder into an empty store")
    s.add_argument(
        "--from",
        dest="from_dir",
        type=Path,
        required=True,
        metavar="STATE_DIR",
        help="the state folder to copy (the hoard on it stopped)",
    )
    s.add_argument(
        "--tokens",
        type=Path,
        default=None,
        help="the tokens file to copy when the store keeps callers (default: hoard token's)",
    )
    _where(s)
