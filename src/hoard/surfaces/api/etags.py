"""A note's revision as an HTTP entity tag, and the conditional request headers.

The ETag of a note is its revision (the SHA-256 of its exact bytes), strong and quoted.
``If-None-Match`` on a ``GET`` compares weakly (``W/`` is ignored) and may list several tags or
``*``; on a ``PUT`` only ``*`` (create, never overwrite) makes sense. ``If-Match`` on a write
names the one revision the caller read.
"""

from __future__ import annotations

from starlette.datastructures import Headers

from hoard.core.errors import InvalidArgument, PreconditionRequired


def etag(revision: str) -> str:
    return f'"{revision}"'


def _tags(header: str) -> list[str]:
    out = []
    for part in header.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        out.append(tag.strip('"'))
    return [t for t in out if t]


def none_match(header: str, revision: str) -> bool:
    """Does ``If-None-Match: header`` match the note (so a ``GET`` answers 304)?"""
    return header.strip() == "*" or revision in _tags(header)


def expected_revision(headers: Headers, required: bool = True) -> str | None:
    """The revision a write may replace: ``If-Match: "<revision>"``; ``None`` to create
    (``If-None-Match: *``). Without either, a write that needs one is refused (428)."""
    if_match = headers.get("if-match")
    if_none = headers.get("if-none-match")
    if if_match is not None and if_none is not None:
        raise InvalidArgument("send If-Match (overwrite) or If-None-Match: * (create), not both")
    if if_none is not None:
        if if_none.strip() != "*":
            raise InvalidArgument("a write takes If-None-Match: * (create only), nothing else")
        return None
    if if_match is not None:
        value = if_match.strip()
        if value.startswith("W/") or "," in value or value == "*":
            raise InvalidArgument(
                'If-Match takes the one strong ETag you read: If-Match: "<revision>"'
            )
        revision = value.strip('"')
        if not revision:
            raise InvalidArgument('If-Match takes the one strong ETag you read: "<revision>"')
        return revision
    if required:
        raise PreconditionRequired(
            'this write needs If-Match: "<revision>" (overwrite what you read) or '
            "If-None-Match: * (create a new note)"
        )
    return None


def if_match(headers: Headers) -> str:
    """The revision an edit or a move starts from: ``If-Match: "<revision>"`` is required
    (428 without; ``If-None-Match`` makes no sense for a note that must exist)."""
    if "if-none-match" in headers:
        raise InvalidArgument('this call changes an existing note: send If-Match: "<revision>"')
    revision = expected_revision(headers, required=True)
    assert revision is not None  # required=True: no header is a 428, If-None-Match refused
    return revision
