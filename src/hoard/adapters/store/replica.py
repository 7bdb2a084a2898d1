"""A replica's threads that keep it in step with the others sharing its PostgreSQL store.

- :class:`ChangeFollower` follows the outbox (:mod:`hoard.adapters.store.coordination`):
  on a connection of its own it ``LISTEN``s, and at each notification (or every
  :data:`POLL_S`, in case one was missed) reads the rows after the last one it applied and
  hands the paths other replicas changed to its index. When the server goes away it
  reconnects with a growing pause and catches up from the rows, which outlive the outage.
- :class:`Housekeeping` writes this replica's heartbeat every :data:`HEARTBEAT_S`, takes it
  off the roster when it stops, and, on the one replica that holds the ``prune`` job,
  prunes old outbox rows and long-gone replicas.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from hoard.adapters.store import coordination
from hoard.adapters.store.leader import LeaderLock, SyncLeader
from hoard.core.errors import Unavailable

if TYPE_CHECKING:
    from hoard.adapters.store.pg import Dedicated, PostgresServer

log = logging.getLogger("hoard.store")

POLL_S = 2.0
"""Without a notification, the outbox is read this often anyway."""
BATCH = 500
BACKOFF_FIRST_S = 0.05
BACKOFF_MAX_S = 2.0
HEARTBEAT_S = 5.0
PRUNE_EVERY_S = 60.0


class ChangeFollower:
    """Applies the changes other replicas make (see the module's docstring). ``apply`` is
    given the changed paths (in the follower's thread); ``on_error`` is told when that
    failed (the index is then behind the folder and repairs itself)."""

    def __init__(
        self,
        server: PostgresServer,
        replica: str,
        after: int,
        apply: Callable[[list[str]], object],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.server = server
        self.replica = replica
        self.applied = after
        """The id of the last outbox row seen (applied, or this replica's own)."""
        self.apply = apply
        self.on_error = on_error
        self.connected = threading.Event()
        """Set while the follower listens (cleared while it reconnects)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_channel = ""

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hoard-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        channel = self._wake_channel
        if channel and self.connected.is_set():
            # end the listener's wait now rather than at its next poll
            with contextlib.suppress(Unavailable), self.server.connection() as conn:
                conn.execute("SELECT pg_notify(%s, '')", (channel,))
        if self._thread is not None:
            self._thread.join(timeout=POLL_S + 3.0)

    def _run(self) -> None:
        pause = BACKOFF_FIRST_S
        while not self._stop.is_set():
            conn: Dedicated | None = None
            try:
                conn = self.server.dedicated("feed")
                self._listen(conn)
                pause = BACKOFF_FIRST_S
                while not self._stop.is_set():
                    if not self._only_mine(conn.wait(POLL_S)):
                        self._catch_up(conn)
            except Unavailable as exc:
                if self.connected.is_set():
                    log.warning("the change feed lost the store (%s); reconnecting", exc.message)
            except Exception as exc:  # the follower must never take the server down
                log.warning(
                    "the change feed failed (%s: %s); restarting it", type(exc).__name__, exc
                )
            finally:
                self.connected.clear()
                if conn is not None:
                    conn.close()
            self._stop.wait(pause)
            pause = min(pause * 2, BACKOFF_MAX_S)

    def _listen(self, conn: Dedicated) -> None:
        pid = conn.rows("SELECT pg_backend_pid()")[0][0]
        self._wake_channel = f"hoard_wake_{pid}"
        conn.listen(coordination.CHANNEL)
        conn.listen(self._wake_channel)
        self._catch_up(conn)  # what committed while not listening
        self.connected.set()

    def _only_mine(self, payloads: list[str]) -> bool:
        """Whether the notifications are all of this replica's own changes (``id replica``),
        which its index has already: no need to read the outbox for them (the next
        notification of another replica's, or the poll, reads past them)."""
        return bool(payloads) and all(p.partition(" ")[2] == self.replica for p in payloads)

    def _catch_up(self, conn: Dedicated) -> None:
        while not self._stop.is_set():
            rows = conn.rows(coordination.CHANGES_AFTER, (self.applied, BATCH))
            if not rows:
                return
            paths = sorted({str(path) for _id, path, _event, who in rows if who != self.replica})
            if paths:
                try:
                    self.apply(paths)
                except Exception as exc:
                    log.warning("applying changes of other replicas failed: %s", exc)
                    if self.on_error is not None:
                        self.on_error(exc)
            self.applied = int(rows[-1][0])
            if len(rows) < BATCH:
                return


class Housekeeping:
    """The heartbeat and the leader's pruning (see the module's docstring)."""

    def __init__(self, server: PostgresServer, replica: str, version: str) -> None:
        self.server = server
        self.replica = replica
        self.version = version
        self.started_at = time.time()
        self.pruner = LeaderLock(server, "prune")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pruned_at = float("-inf")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hoard-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10.0)
        self.pruner.release()
        with contextlib.suppress(Unavailable):  # else the roster forgets it when it is old
            coordination.leave(self.server, self.replica)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Unavailable as exc:
                log.info("no heartbeat: %s", exc.message)
            except Exception as exc:  # housekeeping must never take the server down
                log.warning("replica housekeeping failed: %s: %s", type(exc).__name__, exc)
            self._stop.wait(HEARTBEAT_S)

    def tick(self) -> None:
        """One heartbeat; and the pruning, when it is due and this replica holds the job."""
        coordination.heartbeat(
            self.server,
            self.replica,
            self.started_at,
            os.getpid(),
            socket.gethostname(),
            self.version,
        )
        now = time.monotonic()
        if now - self._pruned_at >= PRUNE_EVERY_S and self.pruner.held():
            self._pruned_at = now
            changes, replicas = coordination.prune(self.server)
            if changes or replicas:
                log.info("pruned %d outbox row(s) and %d gone replica(s)", changes, replicas)


class ReplicaLink:
    """Everything a replica runs to share its store with the others: the outbox its ledger
    writes to, the change follower, the housekeeping, and the sync job's permit. Made
    before the index opens (the follower starts after the newest change then, which the
    index built from the folder has), started once the index is ready."""

    def __init__(self, server: PostgresServer, replica: str, version: str) -> None:
        server.database("coordination", coordination.MIGRATIONS)  # refuses an old schema
        self.server = server
        self.replica = replica
        self.outbox = coordination.Outbox(replica)
        self.sync_permit = SyncLeader(server)
        self.housekeeping = Housekeeping(server, replica, version)
        self._after = coordination.newest_change(server)
        self.follower: ChangeFollower | None = None

    def start(
        self,
        apply: Callable[[list[str]], object],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.follower = ChangeFollower(self.server, self.replica, self._after, apply, on_error)
        self.follower.start()
        self.housekeeping.start()

    def stop(self) -> None:
        if self.follower is not None:
            self.follower.stop()
        self.housekeeping.stop()
        self.sync_permit.release()
