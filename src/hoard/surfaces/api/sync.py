"""Routes of git sync: its status, and one sync on demand."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.sync_results import SyncRunResult, SyncStatus
from hoard.surfaces.api.framework import Op, Param


def sync_ops(hoard: Hoard) -> list[Op]:
    sync = hoard.sync
    return [
        Op(
            method="GET",
            path="/sync",
            op_id="sync_status",
            summary=(
                "The vault's standing with its git remote: last pull and push, unpushed "
                "commits, open conflicts, the last error."
            ),
            tag="sync",
            handler=lambda c: sync.status(caller=c.caller),
            ok={200: SyncStatus},
        ),
        Op(
            method="POST",
            path="/sync",
            op_id="sync_now",
            summary=(
                "Pull the remote through the write path, then push hoard's commits; the result "
                "says what moved and carries the status after the run (error: why it failed)."
            ),
            tag="sync",
            handler=lambda c: sync.sync(
                accept_remote=bool(c.params["accept_remote"]), caller=c.caller
            ),
            ok={200: SyncRunResult},
            params=(
                Param("accept_remote", bool, "Accept a remote that rewrote its history.", False),
            ),
            errors=(400, 403),
        ),
    ]
