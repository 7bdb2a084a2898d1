"""Range reads over a note's bytes that never cut a UTF-8 character. Pure: no I/O."""

from __future__ import annotations

from hoard.core.errors import InvalidArgument


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


def utf8_window(raw: bytes, offset: int, max_bytes: int) -> tuple[str, int, bool]:
    """The text of ``raw[offset:end]`` with ``end`` at most ``offset + max_bytes`` and moved
    back to a character boundary: ``(text, end, valid)``. ``valid`` is False when the bytes
    are not UTF-8 (bad bytes then read as U+FFFD). An offset past the end or inside a
    character, or a window smaller than the character at ``offset``, is ``invalid_argument``."""
    size = len(raw)
    if offset > size:
        raise InvalidArgument(f"offset {offset} is past the end ({size} bytes)", size=size)
    if offset < size and _is_continuation(raw[offset]):
        raise InvalidArgument(f"offset {offset} is inside a UTF-8 character")
    end = min(size, offset + max_bytes)
    while end < size and end > offset and _is_continuation(raw[end]):
        end -= 1
    if end == offset and offset < size:
        raise InvalidArgument("max_bytes is smaller than one character here")
    try:
        return raw[offset:end].decode("utf-8"), end, True
    except UnicodeDecodeError:
        return raw[offset:end].decode("utf-8", errors="replace"), end, False
