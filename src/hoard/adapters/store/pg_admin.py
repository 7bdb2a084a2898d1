"""What an operator asks of a PostgreSQL store (``hoard store check``): the server's
version, each component's schema version, and the replicas that said they were alive."""

from __future__ import annotations

from dataclasses import dataclass

from hoard.adapters.store.pg import PostgresServer

#: The names a replicas table may give its columns: the replica's, and when it was last seen.
_NAME_COLUMNS = ("replica", "name")
_SEEN_COLUMNS = ("seen_at", "last_seen", "heartbeat_at", "updated_at", "at")


@dataclass(frozen=True, slots=True)
class ReplicaSeen:
    name: str
    seen_s_ago: float


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


def _column_types(server: PostgresServer, table: str) -> dict[str, str]:
    with server.connection() as conn:
        rows = conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s",
            (table,),
        ).fetchall()
    return {str(name): str(kind) for name, kind in rows}


def replicas_seen(server: PostgresServer, within_s: float) -> list[ReplicaSeen] | None:
    """The replicas the ``replicas`` table saw within ``within_s`` seconds, most recent
    first; ``None`` when this store records no replicas (no such table)."""
    columns = _column_types(server, "replicas")
    name = next((c for c in _NAME_COLUMNS if c in columns), None)
    seen = next((c for c in _SEEN_COLUMNS if c in columns), None)
    if name is None or seen is None:
        return None
    if columns[seen].startswith("timestamp"):
        age = f"extract(epoch FROM now() - {seen})"
    else:  # seconds since the epoch
        age = f"extract(epoch FROM now()) - {seen}"
    with server.connection() as conn:
        rows = conn.execute(
            f"SELECT {name}, {age} AS ago FROM replicas WHERE {age} <= %s ORDER BY ago",
            (within_s,),
        ).fetchall()
    return [ReplicaSeen(str(r[0]), max(0.0, float(r[1]))) for r in rows]
