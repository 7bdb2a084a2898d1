"""Routes of git sync: its status, and one sync on demand."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.sync_results import SyncRunResult, SyncStatus
from hoard.surfaces.api.framework import Op, Param


def sync_ops(hoard: Hoard) -> list[Op]:
    sync = hoard.sync
    return [
        Op("GET", "/sync", "sync_status",
           "The vault's standing with its git remote: last pull and push, unpushed commits, "
           "open conflicts, the last error.", "sync",
           lambda c: sync.status(caller=c.caller), {200: SyncStatus}, ()),
        Op("POST", "/sync", "sync_now",
           "Pull the remote through the write path, then push hoard's commits; the result "
           "says what moved and carries the status after the run (error: why it failed).",
           "sync",
           lambda c: sync.sync(accept_remote=bool(c.params["accept_remote"]), caller=c.caller),
           {200: SyncRunResult},
           (Param("accept_remote", bool, "Accept a remote that rewrote its history.", False),),
           None, (400, 403)),
    ]  # fmt: skip
