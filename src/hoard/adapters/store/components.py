"""Every component of shared state, with its migrations: what ``hoard store init`` creates
or upgrades in a PostgreSQL store, in this order."""

from __future__ import annotations

from hoard.adapters.callers_store import MIGRATIONS as CALLERS_MIGRATIONS
from hoard.adapters.ledger.store import MIGRATIONS as LEDGER_MIGRATIONS
from hoard.adapters.oauth_store import MIGRATIONS as OAUTH_MIGRATIONS
from hoard.adapters.sessions import MIGRATIONS as SESSIONS_MIGRATIONS
from hoard.adapters.store.coordination import MIGRATIONS as COORDINATION_MIGRATIONS
from hoard.adapters.store.pg import PostgresServer, migrate

COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ledger", LEDGER_MIGRATIONS),
    ("coordination", COORDINATION_MIGRATIONS),
    ("callers", CALLERS_MIGRATIONS),
    ("sessions", SESSIONS_MIGRATIONS),
    ("oauth", OAUTH_MIGRATIONS),
)


def migrate_all(server: PostgresServer) -> dict[str, int]:
    """Bring every component up to date; how many migrations each took."""
    return {name: migrate(server, name, migrations) for name, migrations in COMPONENTS}
