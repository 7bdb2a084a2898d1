"""The callers a server knows: the tokens file, or the ``callers`` table of the replicas'
shared store, as the surfaces see it.

A surface never opens the tokens file itself: it asks :func:`open_callers` and holds the
:class:`CallerFile` it returns (the port; :class:`~hoard.adapters.tokens.TokenStore` is the
adapter behind it, or :class:`~hoard.adapters.callers_store.StoreCallers` when a shared store
is configured). That is who a presented token belongs to (``verify``), whether the file
can be trusted (``status``: strict mode answers 503 while it cannot), and the owner's own
changes from the CLI (whoever runs the CLI owns the file; the JSON API and the web app go
through :class:`~hoard.app.admin.TokenAdmin` and the owner's desk, which check ``admin``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from hoard.adapters.callers_store import MIGRATIONS, StoreCallers
from hoard.adapters.fs.config_file import load_config
from hoard.adapters.store.shared import SharedStore, default_replica_name, store_url
from hoard.adapters.tokens import TokenStore, default_tokens_path
from hoard.core.config import Config
from hoard.core.errors import InvalidArgument
from hoard.core.policy import LOCAL_DEFAULT, Caller, TokenEntry


class CallerFile(Protocol):
    @property
    def where(self) -> str:
        """The tokens file's path, or the store's URL without its password (for messages)."""

    def status(self) -> str | None:
        """Why the file cannot be trusted, or ``None``."""

    def verify(self, token: str) -> Caller | None:
        """The caller holding ``token`` (compared as digests, in constant time)."""

    def find(self, name: str) -> TokenEntry | None: ...

    def entries(self) -> Sequence[TokenEntry]: ...

    def add(
        self,
        name: str,
        scopes: str,
        write_mode: str,
        confirm_own: bool = False,
        read: str = "",
        write: str = "",
    ) -> tuple[TokenEntry, str]:
        """A new caller and its token, shown this once (only its digest is kept)."""

    def revoke(self, name: str) -> None: ...

    def close(self) -> None: ...


def callers_path(path: Path | None = None) -> Path:
    """``path``, or the default tokens file (``$XDG_CONFIG_HOME/hoard/tokens.json``)."""
    return path or default_tokens_path()


def open_callers(
    path: Path | None = None,
    *,
    strict: bool = False,
    config: Config | None = None,
    vault: Path | None = None,
) -> CallerFile:
    """The callers: with a shared store configured (``HOARD_STORE_URL``, else ``[store] url``
    of ``config``, or of ``vault``'s ``hoard.toml``), the store's ``callers`` table, which
    every replica reads; else the tokens file at ``path`` (default :func:`callers_path`).
    ``strict``: a missing or damaged file, or an unreachable store, refuses everything
    instead of knowing no one.

    A tokens file named while a store is configured is refused, not ignored: a token revoked
    in that file would keep working on every replica."""
    if config is None:
        config = load_config(vault) if vault is not None else Config()
    url = store_url(config)
    if not url:
        return TokenStore(callers_path(path), strict=strict)
    if path is not None:
        raise InvalidArgument(
            f"--tokens {path}: this vault's callers live in its shared store (HOARD_STORE_URL "
            "or [store] url), not in a tokens file; leave --tokens out (`hoard store migrate` "
            "copies a tokens file into the store)",
            tokens=str(path),
        )
    # No state folder: a caller list opens only the store's tables, on a small pool.
    shared = SharedStore(Path(), url, default_replica_name(), pool_size=2)
    try:
        db = shared.database("callers", MIGRATIONS, "callers.db")
    except BaseException:
        shared.close()
        raise
    return StoreCallers(db, strict=strict, on_close=shared.close)


def in_store(callers: CallerFile) -> bool:
    """Whether these are a shared store's callers (else a tokens file's)."""
    return isinstance(callers, StoreCallers)


def known_callers(callers: CallerFile) -> list[str]:
    """The callers a grant can name: the tokens file's (OAuth clients are entries there
    too) and the local stdio caller."""
    names = [e.name for e in callers.entries()]
    return names if LOCAL_DEFAULT.name in names else [*names, LOCAL_DEFAULT.name]


def require_known_caller(callers: CallerFile, name: str) -> None:
    """Refuse a grant to a name nobody holds (a typo would otherwise grant nothing,
    silently, or later grant a caller made with that name)."""
    if name not in known_callers(callers):
        raise InvalidArgument(
            f"There is no caller named {name!r}, so nothing was granted: pick one from "
            "the list, or add the caller first.",
            caller=name,
        )
