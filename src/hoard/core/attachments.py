"""Attachments: the files of a vault that are not notes but whose text hoard indexes (PDF,
Word, plain text and CSV, HTML, and images when OCR is there). Pure: which files count, the
reasons an attachment is listed instead of indexed, and how its pages read as one text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hoard.core.paths import normalize_note_path, normalize_rel_path

AttachmentKind = Literal["pdf", "docx", "text", "html", "image"]

KIND_BY_SUFFIX: dict[str, AttachmentKind] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".txt": "text",
    ".csv": "text",
    ".tsv": "text",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
    ".webp": "image",
    ".gif": "image",
}
"""The attachments hoard reads, by file-name ending (any case)."""

AttachmentProblem = Literal[
    "too_large", "too_many_pages", "encrypted", "malformed", "time", "memory", "unreadable"
]
"""Why an attachment is listed rather than indexed: over ``[attachments] max_mb``, over
``max_pages`` (or pixels, for an image), password-protected, not what its name says (or
broken), past the time limit, past the memory limit, or gone or refused on disk."""

PROBLEMS: tuple[AttachmentProblem, ...] = (
    "too_large",
    "too_many_pages",
    "encrypted",
    "malformed",
    "time",
    "memory",
    "unreadable",
)

PAGE_MARK = "\n\n--- page {n} ---\n\n"
"""What separates two pages in an attachment's text as ``vault_read`` returns it."""


def attachment_kind(path: str, ocr: bool = False) -> AttachmentKind | None:
    """The kind of attachment at ``path``, or ``None`` when hoard does not read such files
    (images only with ``ocr``)."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    kind = KIND_BY_SUFFIX.get(path[dot:].lower())
    if kind == "image" and not ocr:
        return None
    return kind


def is_attachment_path(path: str) -> bool:
    """Does ``path`` name a file of a kind hoard reads as an attachment (images included)?"""
    return attachment_kind(path, ocr=True) is not None


def note_or_attachment_path(path: str) -> str:
    """``path`` normalised as a note's (``.md``) or, when it names a kind of attachment,
    as any file's; a claim's source or a read may be either."""
    if isinstance(path, str) and is_attachment_path(path):
        return normalize_rel_path(path)
    return normalize_note_path(path)


@dataclass(frozen=True, slots=True)
class Extracted:
    """An attachment's text, page by page, or why there is none."""

    sha256: str
    pages: tuple[str, ...] = ()
    problem: AttachmentProblem | None = None
    detail: str = ""
    truncated: bool = False
    """The text stopped at the per-file ceiling; the pages before it are indexed."""


@dataclass(frozen=True, slots=True)
class AttachmentLimits:
    """What one extraction may spend (from ``[attachments]``)."""

    max_bytes: int = 50 * 1000 * 1000
    max_pages: int = 2000
    time_s: float = 10.0
    memory_bytes: int = 1024 * 1024 * 1024
    max_text_chars: int = 16 * 1024 * 1024
    max_pixels: int = 60_000_000


def joined_text(pages: tuple[str, ...] | list[str], first_page: int = 1) -> str:
    """Pages as one text, each after a ``--- page N ---`` line (the first one too, so any
    excerpt of it says where it is)."""
    parts: list[str] = []
    for i, text in enumerate(pages):
        mark = PAGE_MARK.format(n=first_page + i)
        parts.append((mark.lstrip("\n") if i == 0 else mark) + text)
    return "".join(parts)
