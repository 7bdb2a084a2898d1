"""Who may run the sync job: the port a deployment with several processes over one vault
backs with a lock of its own (an advisory lock in the shared store), so exactly one of them
pulls and pushes. A single process always may."""

from __future__ import annotations

from typing import Protocol


class SyncPermit(Protocol):
    def may_sync(self) -> bool:
        """Whether this process may run the sync job now (asked before every run)."""
        ...


class SingleProcess:
    """The permit of a hoard that is the only process serving its vault: always yes."""

    def may_sync(self) -> bool:
        return True
