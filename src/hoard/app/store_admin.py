"""The operator's use-cases for a PostgreSQL store shared by replicas (``hoard store``):
bring its schema up to date, check it, and copy a single process's state folder into it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hoard.adapters.fs.config_file import load_config
from hoard.adapters.store.components import COMPONENTS, migrate_all
from hoard.adapters.store.pg import PostgresServer
from hoard.adapters.store.pg_admin import (
    ReplicaSeen,
    replicas_seen,
    schema_versions,
    server_version,
)
from hoard.adapters.store.pg_copy import (
    CopyReport,
    Progress,
    callers_to_copy,
    copy_into,
    state_sources,
)
from hoard.adapters.store.shared import STORE_URL_ENV, default_replica_name, store_url
from hoard.core.errors import InvalidArgument

RECENT_S = 300.0
"""How long ago a replica was last seen to count as running (``hoard store check``)."""


def configured_url(vault: Path, url: str | None) -> str:
    """``url``, else ``HOARD_STORE_URL``, else the vault's ``[store] url``."""
    chosen = (url or "").strip() or store_url(load_config(vault))
    if not chosen:
        raise InvalidArgument(
            f"no store to work on: give --url, set {STORE_URL_ENV}, or set [store] url in "
            f"{vault / 'hoard.toml'}"
        )
    return chosen


@contextlib.contextmanager
def connected(url: str) -> Iterator[PostgresServer]:
    """The store, reached (a wrong URL: ``invalid_argument``; down: ``unavailable``)."""
    server = PostgresServer(url, f"store-admin {default_replica_name()}", max_size=2)
    try:
        yield server
    finally:
        server.close()


@dataclass(frozen=True, slots=True)
class ComponentSchema:
    component: str
    version: int
    """The schema version the store holds (0: none yet)."""
    known: int
    """The version this hoard's migrations bring it to."""
    applied: int = 0
    """How many migrations ``hoard store init`` just applied."""

    @property
    def state(self) -> str:
        if self.version == self.known:
            return "up to date"
        return "newer than this hoard" if self.version > self.known else "behind"


@dataclass(frozen=True, slots=True)
class StoreCheck:
    where: str
    server_version: str
    components: list[ComponentSchema]
    replicas: list[ReplicaSeen] | None
    """Seen within :data:`RECENT_S`; ``None`` when this store records no replicas."""
    recent_s: float = RECENT_S

    @property
    def up_to_date(self) -> bool:
        return all(c.state == "up to date" for c in self.components)


def _schemas(server: PostgresServer, applied: dict[str, int]) -> list[ComponentSchema]:
    versions = schema_versions(server)
    return [
        ComponentSchema(name, versions.get(name, 0), len(migrations), applied.get(name, 0))
        for name, migrations in COMPONENTS
    ]


def init_store(url: str) -> tuple[str, list[ComponentSchema]]:
    """Create or upgrade every component's schema (a newer one is refused); where the
    store is and what each component holds now."""
    with connected(url) as server:
        applied = migrate_all(server)
        return server.where, _schemas(server, applied)


def check_store(url: str) -> StoreCheck:
    with connected(url) as server:
        return StoreCheck(
            where=server.where,
            server_version=server_version(server),
            components=_schemas(server, {}),
            replicas=replicas_seen(server, RECENT_S),
        )


@dataclass(frozen=True, slots=True)
class Migration:
    where: str
    schemas: list[ComponentSchema]
    copied: CopyReport
    skipped: list[str] = field(default_factory=list)
    """What the state folder holds that this hoard does not keep in the store, and why."""


def migrate_state(url: str, state_dir: Path, tokens: Path | None, progress: Progress) -> Migration:
    """Copy a single process's state folder into an empty store, in one transaction, after
    bringing the store's schema up to date; every preserved revision is checked against its
    SHA-256 before the copy commits."""
    sources, skipped = state_sources(state_dir, dict(COMPONENTS), tokens)
    with connected(url) as server:
        applied = migrate_all(server)
        report = copy_into(server, sources, progress, callers_to_copy(tokens))
        return Migration(server.where, _schemas(server, applied), report, skipped)
