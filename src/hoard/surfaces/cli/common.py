"""What every CLI command shares: the --vault/--state-dir/--json options, opening the vault
with a progress bar, printing a result as text or JSON, reading ``--http HOST:PORT``, and the
exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.errors import InvalidArgument
from hoard.core.models import to_json
from hoard.surfaces.defaults import DEFAULT_HOST, DEFAULT_PORT

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_ERROR = 2


class Progress:
    """A one-line progress bar on a terminal's stderr; silent elsewhere."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < 200:
            return
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total}")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False


def add_common(p: argparse.ArgumentParser) -> None:
    """--vault, --state-dir and --json, which every command over a vault takes."""
    p.add_argument(
        "--vault",
        type=Path,
        default=Path("."),
        help="the vault folder (default: the current folder)",
    )
    p.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="where index.db and ledger.db live (default: under $XDG_STATE_HOME)",
    )
    p.add_argument("--json", action="store_true", help="print structured JSON")


def open_hoard(args: argparse.Namespace) -> Hoard:
    bar = Progress("indexing")
    try:
        return Hoard(args.vault, args.state_dir, progress=bar, code_workers=1)
    finally:
        bar.finish()


def emit(args: argparse.Namespace, obj: Any, human: Callable[[Any], None]) -> None:
    """``obj`` as indented JSON with --json, else through ``human``."""
    if args.json:
        json.dump(to_json(obj), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        human(obj)


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST``, ``[V6]:PORT`` or a bare IPv6 address."""
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else str(DEFAULT_PORT)
    elif value.count(":") == 1:
        host, _, port = value.partition(":")
    else:
        host, port = value, str(DEFAULT_PORT)
    host = host or DEFAULT_HOST
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidArgument(f"--http wants HOST:PORT, got {value!r}")
    return host, int(port)
