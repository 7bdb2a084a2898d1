"""Vault-relative note paths: the identity of a note. Pure functions, no I/O.

A note path is a POSIX path relative to the vault root, NFC-normalised, with no ``.``/``..``
components, no empty components, no dot-file components, no backslash, NUL or control
characters, and bounded lengths. Anything else is refused with :class:`PathRejected`.
"""

from __future__ import annotations

import re
import unicodedata

from hoard.core.errors import PathRejected

_DRIVE = re.compile(r"[A-Za-z]:([/\\]|\Z)")

MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 1024


def _reject(path: str, why: str) -> PathRejected:
    shown = path if len(path) <= 200 else path[:200] + "…"
    return PathRejected(f"path {shown!r} rejected: {why}", path=shown, reason=why)


def normalize_rel_path(path: str, *, allow_root: bool = False) -> str:
    """Return the canonical vault-relative form of ``path`` or raise :class:`PathRejected`.

    ``allow_root`` accepts ``""`` (and ``"/"``-free equivalents such as ``"."``) as the vault
    root, for listing folders.
    """
    if not isinstance(path, str):
        raise _reject(repr(path), "not a string")
    if "\x00" in path:
        raise _reject(path, "contains NUL")
    if "\\" in path:
        raise _reject(path, "contains a backslash; use '/'")
    if any(ord(ch) < 32 or 127 <= ord(ch) <= 159 for ch in path):
        raise _reject(path, "contains a control character")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in path):
        raise _reject(path, "contains a lone surrogate (not valid Unicode text)")
    if path.startswith("/") or _DRIVE.match(path):
        raise _reject(path, "absolute paths are not allowed; give a vault-relative path")
    path = unicodedata.normalize("NFC", path)
    stripped = path.rstrip("/")
    if stripped in ("", "."):
        if allow_root:
            return ""
        raise _reject(path, "empty path")
    if len(stripped.encode("utf-8")) > MAX_PATH_BYTES:
        raise _reject(path, f"longer than {MAX_PATH_BYTES} bytes")
    parts = stripped.split("/")
    for part in parts:
        if part == "":
            raise _reject(path, "empty path component ('//')")
        if part in (".", ".."):
            raise _reject(path, "'.' and '..' components are not allowed")
        if part.startswith("."):
            raise _reject(path, "dot-files and dot-folders are outside the vault's notes")
        if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
            raise _reject(path, f"a component is longer than {MAX_COMPONENT_BYTES} bytes")
        if part != part.strip():
            raise _reject(path, "a component starts or ends with white space")
    return "/".join(parts)


def normalize_note_path(path: str) -> str:
    """Like :func:`normalize_rel_path`, and the path must name a ``.md`` note."""
    rel = normalize_rel_path(path)
    if not rel.lower().endswith(".md"):
        raise _reject(path, "notes are Markdown files ending in .md")
    return rel


def folder_of(path: str) -> str:
    """The folder holding a note (``""`` for the vault root)."""
    head, _, _ = path.rpartition("/")
    return head


def stem_of(path: str) -> str:
    """The file name without ``.md``."""
    name = path.rpartition("/")[2]
    return name[:-3] if name.lower().endswith(".md") else name
