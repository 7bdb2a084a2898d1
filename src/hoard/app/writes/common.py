"""Small helpers shared by the write modules: times, and a folder's _INDEX.md."""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import UTC, datetime

from hoard.core import gates
from hoard.core.errors import InvalidArgument
from hoard.core.links import extract_links, link_key, note_keys
from hoard.core.paths import folder_of

INDEX_NAME = "_INDEX.md"


def index_path_for(rel: str) -> str:
    folder = folder_of(rel)
    return f"{folder}/{INDEX_NAME}" if folder else INDEX_NAME


def links_to(index_raw: bytes, note: str) -> bool:
    """Does this _INDEX.md text already link the note (by stem or by path)?"""
    pkey, skey = note_keys(note)
    folder = folder_of(note).lower()
    for ln in extract_links(index_raw.decode("utf-8", "replace")):
        key = link_key(ln.target)
        if key in (pkey, skey) or (folder and f"{folder}/{key}" == pkey):
            return True
    return False


def add_index_line(index_raw: bytes | None, rel: str, line: str, title: str) -> bytes:
    """The folder index with ``line`` added: before a Related block if there is one (it must
    stay byte-identical), else at the end. A missing index is created with valid
    frontmatter."""
    if index_raw is None:
        folder = folder_of(rel) or "vault"
        ascii_name = unicodedata.normalize("NFKD", folder.lower()).encode("ascii", "ignore")
        slug = "-".join(re.findall(r"[a-z0-9]+", ascii_name.decode())) or "folder"
        if slug == "index":
            slug = "folder"
        head = (
            f"---\ntitle: {json.dumps(folder + ' index', ensure_ascii=False)}\ntype: index\n"
            f"status: active\ntags: [index, {slug}]\n"
            f"updated: {datetime.now(UTC).date().isoformat()}\n---\n# {title}\n\n"
        )
        return (head + line + "\n").encode("utf-8")
    related = gates.related_block(index_raw)
    body = index_raw[: len(index_raw) - len(related)] if related is not None else index_raw
    if body and not body.endswith(b"\n"):
        body += b"\n"
    return body + line.encode("utf-8") + b"\n" + (related or b"")


def encode_content(content: object) -> bytes:
    if not isinstance(content, str):
        raise InvalidArgument("content must be a string")
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(
            f"content is not valid Unicode text (a lone surrogate at character {exc.start})"
        ) from exc
