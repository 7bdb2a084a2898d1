"""Who may see and do what: the one place the app layer asks about scopes, protected notes
and private notes.

Every use-case gets an :class:`Access` in its :class:`~hoard.app.deps.Deps`. The rules
themselves are pure (:mod:`hoard.core.policy`, :mod:`hoard.core.gates`); this object adds
the one thing they need from outside: the grants in the ledger.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hoard.adapters.ledger.store import Ledger
from hoard.core import gates
from hoard.core.config import Config
from hoard.core.errors import Protected
from hoard.core.policy import Caller, is_protected, may_see

Visible = Callable[[str], bool]

PRIVATE_LOCKED_REMOTE = (
    "This note is private, and this server can be reached from other machines, so it "
    "cannot be edited, moved or archived here: private notes change through hoard only "
    "when it is bound to loopback with no public address. Edit it on the machine that "
    "holds the vault."
)


class Access:
    """Scope checks, protected-note visibility (through the ledger's grants) and privacy."""

    def __init__(self, config: Config, ledger: Ledger) -> None:
        self.config = config
        self.ledger = ledger

    def require(self, scope: str, *, caller: Caller) -> None:
        """Raise :class:`~hoard.core.errors.Forbidden` unless ``caller`` holds ``scope``."""
        gates.require_scope(caller, scope)

    def is_private(self, path: str) -> bool:
        return gates.is_private(path, self.config)

    def private_lock(self, path: str, *, caller: Caller) -> str | None:
        """Why ``caller`` may not edit, move or archive ``path`` because it is private, in
        words; ``None`` when it may (not private, or the owner's session on loopback)."""
        if not gates.private_locked(path, caller, self.config):
            return None
        if caller.owner:
            return PRIVATE_LOCKED_REMOTE
        return (
            "This note is private: it is never overwritten, moved or archived through the server."
        )

    def is_protected(self, path: str) -> bool:
        """Is ``path`` protected by ``hoard.toml`` (whoever asks)?"""
        return is_protected(path, self.config.protected)

    def visibility(self, *, caller: Caller) -> Visible | None:
        """A predicate for what ``caller`` may see, or ``None`` when it sees everything."""
        protected = self.config.protected
        if not protected or caller.owner:
            return None
        grants = [g for g in self.ledger.active_grants() if g.caller == caller.name]
        now = time.time()
        return lambda path: may_see(path, caller, protected, grants, now)

    def can_see(self, path: str, *, caller: Caller) -> bool:
        if caller.owner or not is_protected(path, self.config.protected):
            return True
        seen = self.visibility(caller=caller)
        return seen is None or seen(path)

    def check_visible(self, path: str, *, caller: Caller) -> None:
        """Raise :class:`~hoard.core.errors.Protected` when ``caller`` may not see ``path``."""
        if not self.can_see(path, caller=caller):
            raise Protected(
                f"{path!r} is protected; ask the owner for a grant (vault_request_access)",
                path=path,
            )
