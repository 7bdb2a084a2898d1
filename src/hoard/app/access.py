"""Who may see and do what: the one place the app layer asks about scopes, protected notes
and private notes.

Every use-case gets an :class:`Access` in its :class:`~hoard.app.deps.Deps`. The rules
themselves are pure (:mod:`hoard.core.policy`, :mod:`hoard.core.gates`); this object adds
the one thing they need from outside: the grants in the ledger.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from hoard.adapters.ledger.store import Ledger
from hoard.core import gates
from hoard.core.config import Config
from hoard.core.errors import Forbidden, NotFound, Protected, Unavailable
from hoard.core.policy import Caller, Grant, is_protected, may_see
from hoard.core.reach import Sight, in_reach, may_write

log = logging.getLogger("hoard.access")

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
        """A predicate for what ``caller`` may see, or ``None`` when it sees everything. For
        a caller limited to folders it is a :class:`~hoard.core.reach.Sight`, which tells
        the counting code which refused notes must not even be counted."""
        if caller.owner:
            return None
        protected = self.config.protected
        seen: Visible | None = None
        if protected:
            grants = [g for g in self._grants() if g.caller == caller.name]
            now = time.time()
            seen = lambda path: may_see(path, caller, protected, grants, now)  # noqa: E731
        return Sight(caller.read_globs, seen) if caller.read_globs else seen

    def _grants(self) -> list[Grant]:
        """The active grants; none while the shared store is unreachable (protected notes
        stay hidden rather than trusting grants that may have been revoked meanwhile)."""
        try:
            return self.ledger.active_grants()
        except Unavailable:
            log.warning("the shared store is unreachable: no grants apply until it is back")
            return []

    def in_reach(self, path: str, *, caller: Caller) -> bool:
        """Whether ``path`` lies within the folders ``caller`` may read (outside them a
        note does not exist for it)."""
        return caller.owner or in_reach(path, caller.read_globs)

    def can_see(self, path: str, *, caller: Caller) -> bool:
        if not self.in_reach(path, caller=caller):
            return False
        if caller.owner or not is_protected(path, self.config.protected):
            return True
        seen = self.visibility(caller=caller)
        return seen is None or seen(path)

    def may_write(self, path: str, *, caller: Caller) -> bool:
        """Whether ``path`` lies within the folders ``caller`` may write."""
        return caller.owner or may_write(path, caller.read_globs, caller.write_globs)

    def check_writable(self, path: str, *, caller: Caller) -> None:
        """Raise :class:`~hoard.core.errors.Forbidden` when ``path`` is outside the folders
        ``caller`` may write (whether or not a note is there)."""
        if self.may_write(path, caller=caller):
            return
        where = caller.write_globs or caller.read_globs
        raise Forbidden(
            f"{path!r} is outside the folders you may write ({', '.join(where)})", path=path
        )

    def check_visible(self, path: str, *, caller: Caller) -> None:
        """Raise :class:`~hoard.core.errors.NotFound` when ``path`` is outside the folders
        ``caller`` may read (worded as for a missing note), and
        :class:`~hoard.core.errors.Protected` when it may not see it."""
        if not self.in_reach(path, caller=caller):
            raise NotFound(f"no note at {path!r}", path=path)
        if not self.can_see(path, caller=caller):
            raise Protected(
                f"{path!r} is protected; ask the owner for a grant (vault_request_access)",
                path=path,
            )
