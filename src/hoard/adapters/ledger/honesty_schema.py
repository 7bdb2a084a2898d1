"""The ledger tables of claims and synthesis registrations, the wording every answer carries,
and the one time format claims speak. Pure: no I/O.

Append-only: a claim is never edited (a newer claim *supersedes* it, one claim at a time),
and a synthesis registration is never replaced in place (re-registering inserts a newer row;
the current registration of a path is its latest one, the older ones are its history).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, date, datetime, timedelta

from hoard.adapters.ledger.store import MIGRATIONS
from hoard.core.errors import InvalidArgument

MIGRATION = MIGRATIONS[3]
"""Migration 4 of :data:`hoard.adapters.ledger.store.MIGRATIONS`: claims and synthesis."""

DISCLAIMER = (
    "Hash equality is not proof of truth: a matching SHA-256 shows only that the bytes are "
    "the ones recorded, not that what they say is right. The ledger does not lock filesystem "
    "writers: anything outside hoard may change a file right after this check."
)

CACHE_NOTE = (
    "Revisions are SHA-256 of the bytes on disk. A file whose (mtime_ns, size, inode) is the "
    "same as when this server last hashed it is not re-read; budget.cached counts those."
)

MAX_TEXT = 500
MAX_VALUE = 8000

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def migration_statements() -> list[str]:
    """:data:`MIGRATION` split into statements (for applying it by hand in tests)."""
    return [s.strip() for s in MIGRATION.split(";") if s.strip()]


def parse_instant(value: object, name: str, *, end_of_day: bool = False) -> float:
    """An ISO 8601 date or date-time as epoch seconds; no zone means UTC.

    A bare date is midnight UTC at its start, or (``end_of_day``, used for ``valid_until``)
    midnight at its end, so ``valid_until="2026-12-31"`` covers the whole of that day.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{name} must be an ISO 8601 date or date-time", field=name)
    text = value.strip()
    try:
        if _DATE.fullmatch(text):
            day = date.fromisoformat(text)
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            if end_of_day:
                moment += timedelta(days=1)
        else:
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidArgument(
            f"{name} must be an ISO 8601 date (2026-03-01) or date-time "
            f"(2026-03-01T12:00:00Z); got {text[:60]!r}",
            field=name,
        ) from exc
    return moment.timestamp()


def iso_instant(ts: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC (``...Z``); whole seconds print without a fraction."""
    if ts is None:
        return None
    moment = datetime.fromtimestamp(ts, UTC)
    if moment.microsecond == 0:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.isoformat().replace("+00:00", "Z")


def clean_text(value: object, name: str, limit: int = MAX_TEXT) -> str:
    """A required, non-blank string argument (trimmed), at most ``limit`` characters."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string", field=name)
    text = unicodedata.normalize("NFC", value.strip())
    if not text:
        raise InvalidArgument(f"{name} must not be empty", field=name)
    if len(text) > limit:
        raise InvalidArgument(f"{name} is longer than {limit} characters", field=name)
    return text
