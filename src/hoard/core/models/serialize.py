"""Plain JSON-able data from any result dataclass (:func:`to_json`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hoard.core.result_warnings import unsynced

_SCALARS = frozenset({str, int, float, bool, type(None)})


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def to_json(obj: Any) -> Any:
    """Plain JSON-able data from a result dataclass (recursively). Scalars are checked
    first, a scalar field is copied without a call, and field names are cached per class:
    a listing has thousands of leaves."""
    cls = type(obj)
    if cls in _SCALARS:
        return obj
    if cls is list or cls is tuple:
        return [to_json(x) for x in obj]
    if cls is dict:
        return {str(k): to_json(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for name in _field_names(cls):
            value = getattr(obj, name)
            out[name] = value if type(value) in _SCALARS else to_json(value)
        if out.get("kind", 0) is None:
            _drop_note_fields(out)
        return out if out.get("synced", 0) is not None else unsynced(out)
    if isinstance(obj, list | tuple):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    return obj


ATTACHMENT_FIELDS = ("kind", "page", "pages")
"""Fields of a search hit or a read that only an attachment carries: absent for a note."""


def _drop_note_fields(out: dict[str, Any]) -> None:
    for name in ATTACHMENT_FIELDS:
        if out.get(name, 0) is None:
            del out[name]
