"""The ledger tables of claims and synthesis registrations, the wording every answer carries,
and the one time format claims speak. Pure: no I/O.

Append-only: a claim is never edited (a newer claim *supersedes* it, one claim at a time),
and a synthesis registration is never replaced in place (re-registering inserts a newer row;
the current registration of a path is its latest one, the older ones are its history).
"""

from __future__ import annotations

import unicodedata

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


def migration_statements() -> list[str]:
    """:data:`MIGRATION` split into statements (for applying it by hand in tests)."""
    return [s.strip() for s in MIGRATION.split(";") if s.strip()]


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
