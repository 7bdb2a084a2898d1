"""What a use-case is given: the adapters it may use and the access rules, built once by the
composition root (:class:`hoard.app.hoard.Hoard`) and shared by every flow.

A use-case takes a :class:`Deps` (and, where it chains to another flow, that flow's object),
never the façade, so nothing in the app layer imports :mod:`hoard.app.hoard`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hoard.adapters.fs.vault import Vault
from hoard.adapters.index.store import Index
from hoard.adapters.ledger.store import Ledger
from hoard.app.access import Access
from hoard.core.config import Config
from hoard.core.policy import OWNER, Caller


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
    owner: Caller = OWNER

    @property
    def lock_dir(self) -> Path:
        return self.state_dir / "locks"
