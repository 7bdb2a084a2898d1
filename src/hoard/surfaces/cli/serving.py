"""What both ways of running ``hoard serve`` share, without the server stack: the callers
(the tokens file, or the shared store's) and the caller ``--as`` names, and opening the vault
with its watcher (also in a thread of its own, while the server stack loads)."""

from __future__ import annotations

import argparse
import threading
from dataclasses import dataclass
from pathlib import Path

from hoard.app.callers import CallerFile, in_store, open_callers
from hoard.app.hoard import Hoard
from hoard.core.errors import NotFound
from hoard.core.policy import LOCAL_DEFAULT, Caller
from hoard.surfaces.cli.common import Progress


@dataclass(frozen=True)
class Served:
    """Who the server answers as, and the callers it checks tokens against."""

    store: CallerFile
    caller: Caller
    tokens_file: bool
    """Whether the callers are a tokens file (else the shared store's table)."""


def served(args: argparse.Namespace) -> Served:
    """The callers (``--tokens``, ``--strict``; the shared store's when one is configured)
    and the caller: the local default, or the one ``--as NAME`` names among them."""
    store = open_callers(args.tokens, strict=args.strict, vault=args.vault)
    caller: Caller = LOCAL_DEFAULT
    if args.as_name:
        entry = store.find(args.as_name)
        if entry is None:
            raise NotFound(f"--as {args.as_name!r}: no such caller in {store.where}")
        caller = entry.caller()
    return Served(store=store, caller=caller, tokens_file=not in_store(store))


def open_served(args: argparse.Namespace) -> Hoard:
    """The vault, indexed (a progress bar on a terminal) and watched for outside edits;
    ``--replica`` names this server among the replicas of a shared store."""
    bar = Progress("indexing")
    try:
        return Hoard(
            args.vault,
            args.state_dir,
            watch=True,
            progress=bar,
            replica=getattr(args, "replica", None),
        )
    finally:
        bar.finish()


class OpeningVault:
    """:func:`open_served` in a thread of its own, started now: the vault opens while the
    caller loads the server stack. Most of an open is waiting (the watcher's first poll,
    about 0.1 s; the index's files), which the import of the MCP SDK fills. :meth:`hoard`
    waits for it and raises what the open raised."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._opened: Hoard | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(
            target=self._open, args=(args,), name="hoard-open", daemon=True
        )
        self._thread.start()

    def _open(self, args: argparse.Namespace) -> None:
        try:
            self._opened = open_served(args)
        except BaseException as exc:  # handed to the thread that waits for it
            self._failure = exc

    def hoard(self) -> Hoard:
        """The opened vault, once it is open."""
        self._thread.join()
        if self._failure is not None:
            raise self._failure
        assert self._opened is not None
        return self._opened

    def abandon(self) -> None:
        """Wait for the open and close what it opened (the server will not run)."""
        self._thread.join()
        if self._opened is not None:
            self._opened.close()


def demo_token(args: argparse.Namespace) -> str | None:
    """The token ``make serve`` made for its demo caller, to show in the connection help."""
    path: Path | None = args.demo_token_file
    if path is None or not path.exists():
        return None
    return path.read_text().strip() or None
