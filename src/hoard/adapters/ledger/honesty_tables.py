"""Every statement on the claims and synthesis tables (their schema is migration 4 of
:data:`hoard.adapters.ledger.store.MIGRATIONS`, described in
:mod:`hoard.adapters.ledger.honesty_schema`): one method per question or write, rows out as
plain tuples and records, the rules about them left to the use-cases."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.sql import SqlConn

ClaimRow = tuple[object, ...]
"""One claim joined with the claim that supersedes it: ``claim_id, subject, property, scope,
value, source_path, source_revision, valid_from, valid_until, supersedes, superseded_by,
caller, recorded_at``."""

_COLUMNS = (
    "c.claim_id, c.subject, c.property, c.scope, c.value, c.source_path, c.source_revision, "
    "c.valid_from, c.valid_until, c.supersedes, s.claim_id, c.caller, c.recorded_at"
)
_FROM = "FROM claims c LEFT JOIN claims s ON s.supersedes = c.claim_id"


@dataclass(frozen=True, slots=True)
class NewClaim:
    claim_id: str
    subject: str
    property: str
    scope: str
    value: str
    source_path: str
    source_revision: str
    valid_from: float | None
    valid_until: float | None
    supersedes: str | None
    caller: str
    recorded_at: float


class ClaimsTable:
    """The claims table: append-only, a claim superseded at most once."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def insert(
        self,
        claim: NewClaim,
        *,
        superseded_id: str | None = None,
        vet_superseded: Callable[[ClaimRow | None], None] | None = None,
    ) -> None:
        """Insert ``claim`` in one transaction; first, when ``superseded_id`` is given,
        ``vet_superseded`` sees that claim's row (``None``: no such claim) and may raise to
        write nothing."""
        with self.ledger.transaction() as conn:
            if superseded_id is not None and vet_superseded is not None:
                vet_superseded(_by_id(conn, superseded_id))
            conn.execute(
                "INSERT INTO claims(claim_id, subject, property, scope, value, source_path, "
                "source_revision, valid_from, valid_until, supersedes, caller, recorded_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    claim.claim_id,
                    claim.subject,
                    claim.property,
                    claim.scope,
                    claim.value,
                    claim.source_path,
                    claim.source_revision,
                    claim.valid_from,
                    claim.valid_until,
                    claim.supersedes,
                    claim.caller,
                    claim.recorded_at,
                ),
            )

    def for_key(self, subject: str, prop: str, scope: str) -> list[ClaimRow]:
        """Every claim on ``subject`` / ``prop`` / ``scope``, oldest first."""
        return self._select(
            "c.subject = ? AND c.property = ? AND c.scope = ?", (subject, prop, scope)
        )

    def matching(self, subject: str | None, source_path: str | None) -> list[ClaimRow]:
        """Every claim on ``subject`` and from ``source_path`` (each when given), oldest
        first."""
        where, params = ["TRUE"], list[object]()
        if subject is not None:
            where.append("c.subject = ?")
            params.append(subject)
        if source_path is not None:
            where.append("c.source_path = ?")
            params.append(source_path)
        return self._select(" AND ".join(where), tuple(params))

    def _select(self, where: str, params: tuple[object, ...]) -> list[ClaimRow]:
        with self.ledger.read() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} {_FROM} WHERE {where} ORDER BY c.seq", params
            ).fetchall()
        return [tuple(r) for r in rows]


def _by_id(conn: SqlConn, claim_id: str) -> ClaimRow | None:
    row = conn.execute(f"SELECT {_COLUMNS} {_FROM} WHERE c.claim_id = ?", (claim_id,)).fetchone()
    return None if row is None else tuple(row)


@dataclass(frozen=True, slots=True)
class Registration:
    """One synthesis registration: a summary note and the revisions of its sources."""

    registration_id: str
    path: str
    caller: str
    created_at: float
    sources: tuple[tuple[str, str], ...]


SHARED_PATHS_S = 1.0
"""How long a replica of a shared store trusts its list of registered summaries."""


class SynthesisTable:
    """The syntheses and synthesis_sources tables: a path's current registration is its
    latest row; older rows are its history."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._paths_seen: tuple[float, frozenset[str]] | None = None

    def register(
        self,
        registration_id: str,
        path: str,
        caller: str,
        at: float,
        sources: list[tuple[str, str]],
    ) -> str | None:
        """Record a registration of ``path`` with ``(source, revision)`` pairs in order; the
        id of the registration it replaces (``None``: the first)."""
        with self.ledger.transaction() as conn:
            before = conn.execute(
                "SELECT registration_id FROM syntheses WHERE path = ? ORDER BY seq DESC LIMIT 1",
                (path,),
            ).fetchone()
            conn.execute(
                "INSERT INTO syntheses(registration_id, path, caller, created_at) VALUES(?,?,?,?)",
                (registration_id, path, caller, at),
            )
            conn.executemany(
                "INSERT INTO synthesis_sources(registration_id, position, path, revision) "
                "VALUES(?,?,?,?)",
                [(registration_id, i, src, rev) for i, (src, rev) in enumerate(sources)],
            )
        self._paths_seen = None
        return None if before is None else str(before[0])

    def summary_paths(self) -> set[str]:
        """Every path that has a registration."""
        with self.ledger.read() as conn:
            return {str(r[0]) for r in conn.execute("SELECT DISTINCT path FROM syntheses")}

    def registered_among(self, paths: list[str]) -> set[str]:
        """Which of ``paths`` have a registration (one query)."""
        if not paths:
            return set()
        if self.ledger.db.engine == "postgres":
            return set(self._shared_summary_paths().intersection(paths))
        marks = ",".join("?" * len(paths))
        with self.ledger.read() as conn:
            rows = conn.execute(
                f"SELECT DISTINCT path FROM syntheses WHERE path IN ({marks})", tuple(paths)
            ).fetchall()
        return {str(r[0]) for r in rows}

    def _shared_summary_paths(self) -> frozenset[str]:
        """On a shared store, the registered paths read at most once a second (this
        replica's own registrations at once), so a search does not leave the replica for
        them: a summary registered on another replica is current when registered, and
        carries no warning until its sources drift."""
        now = time.monotonic()
        seen = self._paths_seen
        if seen is None or now - seen[0] >= SHARED_PATHS_S:
            seen = (now, frozenset(self.summary_paths()))
            self._paths_seen = seen
        return seen[1]

    def latest(self, path: str) -> Registration | None:
        """The current registration of ``path``, ``None`` when it has none."""
        with self.ledger.read() as conn:
            row = conn.execute(
                "SELECT registration_id, caller, created_at FROM syntheses WHERE path = ? "
                "ORDER BY seq DESC LIMIT 1",
                (path,),
            ).fetchone()
            return None if row is None else _load(conn, path, row)

    def history(self, path: str) -> list[Registration]:
        """Every registration of ``path``, newest (the current one) first."""
        with self.ledger.read() as conn:
            rows = conn.execute(
                "SELECT registration_id, caller, created_at FROM syntheses WHERE path = ? "
                "ORDER BY seq DESC",
                (path,),
            ).fetchall()
            return [_load(conn, path, r) for r in rows]


def _load(conn: SqlConn, path: str, row: tuple[Any, ...]) -> Registration:
    rows = conn.execute(
        "SELECT path, revision FROM synthesis_sources WHERE registration_id = ? ORDER BY position",
        (row[0],),
    ).fetchall()
    return Registration(
        registration_id=str(row[0]),
        path=path,
        caller=str(row[1]),
        created_at=float(row[2]),
        sources=tuple((str(p), str(v)) for p, v in rows),
    )
