"""vault_read of an attachment: its extracted text (from the cache by the file's hash, or
read now in the extraction pool), every page after a ``--- page N ---`` line, or one page
when asked; in byte ranges like a note. Its revision is the SHA-256 of the file's bytes."""

from __future__ import annotations

from hoard.app.deps import Deps
from hoard.core.attachments import Extracted, is_attachment_path, joined_text
from hoard.core.byte_window import utf8_window
from hoard.core.errors import InvalidArgument, IoError, NotFound, TooLarge
from hoard.core.models import ReadResult


def read_attachment(
    deps: Deps,
    rel: str,
    offset: int,
    window: int,
    page: int | None,
    heading: str | None = None,
    block: str | None = None,
) -> ReadResult:
    """``rel`` (normalised, visible to the caller) read as an attachment."""
    if not is_attachment_path(rel):
        raise InvalidArgument("page is for attachments (PDF, Word...); a note has none")
    if heading is not None or block is not None:
        raise InvalidArgument("an attachment has no headings or blocks; give a page")
    if deps.attachments is None:
        raise NotFound(f"{rel!r} is not a note ([attachments] enabled = false)", path=rel)
    found = deps.attachments.text_of(rel)
    if found.problem is not None:
        _refuse(rel, found)
    pages = found.pages
    if page is not None:
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= len(pages):
            raise InvalidArgument(
                f"page must be a whole number from 1 to {len(pages)}", path=rel, pages=len(pages)
            )
        text = joined_text(pages[page - 1 : page], first_page=page)
    else:
        text = joined_text(pages)
    data = text.encode("utf-8")
    content, end, _ = utf8_window(data, offset, window)
    return ReadResult(
        path=rel,
        revision=found.sha256,
        size=len(data),
        content=content,
        offset=offset,
        next_offset=end if end < len(data) else None,
        truncated=end < len(data),
        frontmatter=None,
        kind="attachment",
        pages=len(pages),
        page=page,
    )


def _refuse(rel: str, found: Extracted) -> None:
    message = f"{rel!r} has no text hoard can read: {found.problem}"
    if found.detail:
        message += f" ({found.detail})"
    if found.problem in ("too_large", "too_many_pages"):
        raise TooLarge(message, path=rel, problem=found.problem, revision=found.sha256)
    raise IoError(message, path=rel, problem=found.problem, revision=found.sha256)
