"""Named failpoints for crash-safety tests.

``HOARD_FAILPOINT=name`` makes the process exit on the spot (``os._exit(97)``, no cleanup, as a
crash would) when it reaches ``hit("name")``; ``HOARD_FAILPOINT=name:error`` raises an
``OSError(EIO)`` there instead, to test that an I/O failure fails the request and keeps the
old bytes. ``name:pause`` stops there until the test lets it go: the process creates
``$HOARD_FAILPOINT_DIR/name.paused`` and waits (at most a minute) for ``name.go`` beside it, so
a test can act inside a window (an outside editor saving between two steps). Several specs
may be given, separated by commas. Unset, a failpoint costs one dictionary lookup.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

ENV = "HOARD_FAILPOINT"
DIR_ENV = "HOARD_FAILPOINT_DIR"
PAUSE_LIMIT_S = 60.0
EXIT_CODE = 97

POINTS: tuple[str, ...] = (
    # vault_write (and vault_confirm of a write)
    "write.locked",
    "write.preserved",
    "write.staged",
    "write.stage_fsync",
    "write.exchanged",
    "write.renamed",
    "write.dir_fsync",
    "write.indexed",
    # vault_archive
    "archive.locked",
    "archive.preserved",
    "archive.unlinked",
    # vault_restore
    "restore.staged",
    "restore.stage_fsync",
    "restore.linked",
    # vault_file_note: the journaled two-file transaction
    "txn.intent",
    "txn.note.preserved",
    "txn.note.staged",
    "txn.note.stage_fsync",
    "txn.note.renamed",
    "txn.note.dir_fsync",
    "txn.index.preserved",
    "txn.index.staged",
    "txn.index.stage_fsync",
    "txn.index.renamed",
    "txn.index.dir_fsync",
    "txn.done",
)

MOVE_POINTS: tuple[str, ...] = (
    # vault_move: one journaled transaction (new note, linking notes, _INDEX.md files, old note)
    "move.locked",
    "move.intent",
    "txn.move-note.preserved",
    "txn.move-note.staged",
    "txn.move-note.renamed",
    "txn.move-note.dir_fsync",
    "txn.move-link.preserved",
    "txn.move-link.staged",
    "txn.move-link.renamed",
    "txn.move-index.preserved",
    "txn.move-index.staged",
    "txn.move-index.renamed",
    "txn.move-old.preserved",
    "txn.move-old.unlinked",
    "txn.done",
)

SYNC_POINTS: tuple[str, ...] = (
    # a git pull: after the fetch, after each file it brings, before the branch moves
    "sync.fetched",
    "sync.file",
    "sync.applied",
)

OTHER_POINTS: tuple[str, ...] = (
    # a worker process of a full rebuild, before it prepares a chunk of notes
    "rebuild.worker",
)


def hit(name: str) -> None:
    spec = os.environ.get(ENV)
    if not spec:
        return
    for one in spec.split(","):
        point, _, mode = one.partition(":")
        if point != name:
            continue
        if mode == "error":
            raise OSError(errno.EIO, f"injected I/O error at {name}")
        if mode == "pause":
            _pause(name)
            continue
        os._exit(EXIT_CODE)


def _pause(name: str) -> None:
    folder = Path(os.environ.get(DIR_ENV) or ".")
    (folder / f"{name}.paused").touch()
    go = folder / f"{name}.go"
    deadline = time.monotonic() + PAUSE_LIMIT_S
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
