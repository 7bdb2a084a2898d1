"""What a use-case is given: the adapters it may use and the access rules, built once by the
composition root (:class:`hoard.app.hoard.Hoard`) and shared by every flow.

A use-case takes a :class:`Deps` (and, where it chains to another flow, that flow's object),
never the façade, so nothing in the app layer imports :mod:`hoard.app.hoard`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from hoard.adapters.attachments.indexer import Attachments
from hoard.adapters.fs.vault import Vault
from hoard.adapters.index.store import Index
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.locks import PathLocks
from hoard.adapters.store_errors import DatabaseError
from hoard.app.access import Access
from hoard.core.config import Config
from hoard.core.errors import Busy

T = TypeVar("T")


def no_paths() -> list[str]:
    """The fallback of a list of paths that only the index knows: none."""
    return []


@dataclass(frozen=True, slots=True)
class Deps:
    config: Config
    vault: Vault
    index: Index
    ledger: Ledger
    access: Access
    state_dir: Path
    #: Bring the index up to date with the files before reading it (cheap when nothing changed).
    ensure_fresh: Callable[[], None]
    #: The per-path locks every write takes (file locks, or advisory locks on a shared store).
    locks: PathLocks
    #: A use-case met a database error from the index: log it and repair the index (the
    #: caller then answers from the files, labeled, or with a ``busy`` error).
    index_failed: Callable[[BaseException], None] = lambda exc: None
    #: Applying a write to the index failed: the index is behind the files until repaired
    #: (searches meanwhile answer from the files, labeled).
    index_missed: Callable[[BaseException], None] = lambda exc: None
    #: Attachments' text (``None`` when ``[attachments] enabled = false``).
    attachments: Attachments | None = None

    def from_index(self, read: Callable[[], T], fallback: Callable[[], T] | None = None) -> T:
        """``read()`` of the index; on a database error (a corrupt, missing or distrusted
        index) the index is repaired and ``fallback()`` answers instead, or, without one,
        a ``busy`` error says to try again shortly. Never a crash."""
        try:
            return read()
        except DatabaseError as exc:
            self.index_failed(exc)
            if fallback is None:
                raise Busy(
                    "the search index is unusable and being rebuilt; try again shortly",
                    reason="index_rebuilding",
                ) from exc
            return fallback()
