"""What an operator asks of a PostgreSQL store (``hoard store check``): the server's
version, each component's schema version, and the replicas that said they were alive."""

from __future__ import annotations

from hoard.adapters.store.coordination import ReplicaSeen, recent_replicas
from hoard.adapters.store.pg import PostgresServer

__all__ = ["ReplicaSeen", "replicas_seen", "schema_versions", "server_version"]


def server_version(server: PostgresServer) -> str:
    with server.connection() as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "unknown"


def schema_versions(server: PostgresServer) -> dict[str, int]:
    """Each component's schema version, as ``hoard_schema`` records it (none: empty)."""
    with server.connection() as conn:
        exists = conn.execute("SELECT to_regclass('hoard_schema') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return {}
        rows = conn.execute("SELECT component, version FROM hoard_schema").fetchall()
    return {str(component): int(version) for component, version in rows}


def replicas_seen(server: PostgresServer, within_s: float) -> list[ReplicaSeen] | None:
    """The replicas whose heartbeat is at most ``within_s`` old, most recent first; ``None``
    when the store has no roster yet (``hoard store init`` has not made it)."""
    if schema_versions(server).get("coordination", 0) < 1:
        return None
    return recent_replicas(server, within_s)
