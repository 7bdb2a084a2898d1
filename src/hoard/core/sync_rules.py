"""The rules of git sync that need no I/O: what a pull does with each path both sides may
have changed, how a kept conflict copy is named and marked, and how a remote's address is
shown without its credentials.

A path is compared by the git blob it holds at three commits: the last sync both sides had
(the base), hoard's own history (local) and the remote's. ``None`` means the path is absent.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from hoard.core.fm_edit import open_block, remove_fields, render, set_fields
from hoard.core.frontmatter import split_frontmatter

Action = Literal["take_remote", "keep_local", "same", "conflict"]

_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")
_CONFLICT = re.compile(r"^(?P<stem>.+)\.conflict-\d{4}-\d{2}-\d{2}-[0-9a-f]{7}(?P<ext>\.[^./]+)?$")


def scrub(text: str) -> str:
    """``text`` with the user and password of every URL in it removed
    (``https://me:secret@host/x`` → ``https://***@host/x``): nothing hoard says or logs
    carries a credential, whatever git printed."""
    return _USERINFO.sub(lambda m: m.group("scheme") + "***@", text)


def remote_label(remote: str) -> str:
    """How a remote is named in answers and ledger credits: a remote's name as given, a URL
    without its credentials."""
    return scrub(remote.strip())


def blob_id(data: bytes) -> str:
    """The id git gives ``data`` as a blob (SHA-1 object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def decide(base: str | None, local: str | None, remote: str | None) -> Action:
    """What a pull does with one path, from its blob at the base, in hoard's history and on
    the remote: the side that changed wins; both changing it the same way is no change;
    both changing it differently (an edit against a removal included) is a conflict, where
    both versions are kept."""
    if local == remote:
        return "same"
    if local == base:
        return "take_remote"
    if remote == base:
        return "keep_local"
    return "conflict"


def conflict_name(path: str, day: str, short: str) -> str:
    """The sibling that keeps hoard's version: ``<name>.conflict-<date>-<short><ext>``
    beside the note (``tech/hue.md`` → ``tech/hue.conflict-2026-12-01-ab12cd3.md``)."""
    head, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    sibling = f"{stem}.conflict-{day}-{short[:7]}" + (f".{ext}" if ext else "")
    return f"{head}/{sibling}" if head else sibling


def conflict_of(path: str) -> str | None:
    """The path a conflict sibling stands beside, or ``None`` when ``path`` is no sibling."""
    head, _, name = path.rpartition("/")
    m = _CONFLICT.match(name)
    if m is None:
        return None
    original = m.group("stem") + (m.group("ext") or "")
    return f"{head}/{original}" if head else original


@dataclass(frozen=True, slots=True)
class ConflictMark:
    """What a kept copy says about itself in its frontmatter."""

    path: str
    local_revision: str
    remote_revision: str | None
    local_commit: str
    remote_commit: str


MARK_FIELDS = (
    "conflict_of",
    "conflict_local_revision",
    "conflict_remote_revision",
    "conflict_local_commit",
    "conflict_remote_commit",
)


REMOVED_HERE = "removed here"
"""A sibling's ``conflict_local_revision`` when hoard had removed the note the remote
edited: the sibling then keeps the note as hoard last had it, and keeping hoard's side
removes the note again."""


def removed_here(text: str) -> bool:
    """Whether a conflict sibling stands for hoard's removal of its note."""
    split = split_frontmatter(text)
    head = text[: split.body_offset] if split.has_block else ""
    return any(
        line.split(":", 1)[1].strip() == REMOVED_HERE
        for line in head.splitlines()
        if line.startswith("conflict_local_revision:")
    )


def unmarked(text: str) -> str:
    """A conflict sibling's text without the fields :func:`marked_copy` added (what
    keeping hoard's version writes back at the path)."""
    split = split_frontmatter(text)
    if not split.has_block:
        return text
    head, body = text[: split.body_offset], text[split.body_offset :]
    nl = "\r\n" if "\r\n" in head else "\n"
    block = open_block(head, nl)
    remove_fields(block, [k for k in MARK_FIELDS if f"{k}:" in head])
    out = render(block)
    if out.replace("\r", "").strip() == "---\n---":
        out = ""
    return out + body


def marked_copy(raw: bytes, mark: ConflictMark) -> bytes:
    """Hoard's version of a note as its conflict sibling: the same bytes with
    ``conflict_of`` and both revisions named in the frontmatter (a block is added when the
    note has none, or one these edits cannot change safely). Bytes that are not UTF-8 text
    (an attachment) are kept exactly."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw
    values = (
        mark.path,
        mark.local_revision,
        mark.remote_revision or "removed on the remote",
        mark.local_commit,
        mark.remote_commit,
    )
    fields = dict(zip(MARK_FIELDS, values, strict=True))
    nl = "\r\n" if "\r\n" in text[:4096] else "\n"
    split = split_frontmatter(text)
    head, body = ("", text)
    if split.has_block:
        head, body = text[: split.body_offset], text[split.body_offset :]
    try:
        block = open_block(head, nl)
        set_fields(block, fields, nl)
        return (render(block) + body).encode("utf-8")
    except Exception:  # an unusual block: a fresh one in front keeps the original intact
        lines = "".join(f"{k}: {v}{nl}" for k, v in fields.items())
        return f"---{nl}{lines}---{nl}{text}".encode()
