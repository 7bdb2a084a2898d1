"""Find notes by their fields: the ``filters`` of ``vault_search``. Pure: no I/O.

``{"type", "status", "tags", "tags_any", "updated_after", "updated_before", "folder"}``:
``type`` and ``status`` take a string or a list (any of them); ``tags`` all of them,
``tags_any`` at least one; ``updated_after`` / ``updated_before`` are inclusive
``YYYY-MM-DD`` bounds on the ``updated`` field; ``folder`` limits to a folder and below.
Values compare after Unicode NFC and case folding (:func:`field_key`), so ``Úkol`` finds
``úkol`` but not ``ukol``: a filter is exact, unlike the search words.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from hoard.core.errors import InvalidArgument
from hoard.core.paths import normalize_rel_path

KEYS = ("type", "status", "tags", "tags_any", "updated_after", "updated_before", "folder")
MAX_VALUES = 32
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def field_key(value: str) -> str:
    """How a field value compares: NFC, trimmed, case-folded."""
    return unicodedata.normalize("NFC", value).strip().casefold()


def updated_key(value: Any) -> str | None:
    """The ``updated`` field as a sortable date string (``None`` unless it starts with one)."""
    text = str(value).strip() if isinstance(value, str | int) else ""
    return text[:10] if _DATE.match(text) else None


@dataclass(frozen=True, slots=True)
class Filters:
    type: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    updated_after: str | None = None
    updated_before: str | None = None
    folder: str | None = None


def _values(obj: dict[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) and v.strip() for v in items):
        raise InvalidArgument(f"filters.{key} must be a string or a list of non-empty strings")
    if len(items) > MAX_VALUES:
        raise InvalidArgument(f"filters.{key}: at most {MAX_VALUES} values")
    return tuple(
        dict.fromkeys(field_key(v.removeprefix("#") if "tags" in key else v) for v in items)
    )


def _date(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not _DATE.fullmatch(value.strip()):
        raise InvalidArgument(f"filters.{key} must be a date YYYY-MM-DD")
    return value.strip()


def parse_filters(raw: object) -> Filters | None:
    """The caller's filters object (``None`` or ``{}``: no filters)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InvalidArgument("filters must be an object")
    unknown = set(raw) - set(KEYS)
    if unknown:
        raise InvalidArgument(
            f"unknown filter(s): {', '.join(sorted(map(str, unknown)))}; known: {', '.join(KEYS)}"
        )
    folder = raw.get("folder")
    if folder is not None and not isinstance(folder, str):
        raise InvalidArgument("filters.folder must be a string")
    f = Filters(
        type=_values(raw, "type"),
        status=_values(raw, "status"),
        tags=_values(raw, "tags"),
        tags_any=_values(raw, "tags_any"),
        updated_after=_date(raw, "updated_after"),
        updated_before=_date(raw, "updated_before"),
        folder=(normalize_rel_path(folder, allow_root=True) or None) if folder else None,
    )
    return None if f == Filters() else f
