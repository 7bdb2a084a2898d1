"""Every component of shared state, with its migrations: what ``hoard store init`` creates
or upgrades in a PostgreSQL store, in this order."""

from __future__ import annotations

from hoard.adapters.ledger.store import MIGRATIONS as LEDGER_MIGRATIONS
from hoard.adapters.store.coordination import MIGRATIONS as COORDINATION_MIGRATIONS
from hoard.adapters.store.pg import PostgresServer, migrate

COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ledger", LEDGER_MIGRATIONS),
    ("coordination", COORDINATION_MIGRATIONS),
)


def migrate_all(server: PostgresServer) -> dict[str, int]:
    """Bring every component up to date; how many migrations each took."""
    return {name: migrate(server, name, migrations) for name, migrations in COMPONENTS}
