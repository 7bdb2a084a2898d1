"""The last step of a write that closes the window between the revision check and the swap.

An outside editor does not take hoard's path lock: it may save a note after hoard read the
bytes it checked and before hoard's new bytes land. A plain ``rename`` would then replace bytes
hoard has never seen. On Linux, ``renameat2(RENAME_EXCHANGE)`` swaps the staged file and the
note atomically, so the file that was at the path is still there afterwards (at the stage
name) and can be compared with the bytes whose revision was checked:

- the same bytes: the write stands, the swapped-out file is removed;
- other bytes (an editor saved in the window): swap back, so the editor's bytes are at the
  path again, and the write is answered ``conflict`` with their revision. If yet another
  save landed on the path between the two swaps, the newest outside bytes are swapped to the
  path (a bounded number of times) and only hoard's own unacknowledged bytes, or an outside
  save the editor itself replaced, are removed.

A create uses ``RENAME_NOREPLACE``: an editor that created the file in the window wins, and
the write is answered ``exists``.

Where ``renameat2`` is missing (another OS, an old libc) or the filesystem refuses the flags
(``EINVAL``), the write falls back to ``rename``, and the window between the check and the
rename stays open (about the time of one fsync). See ``docs/outside-editors.md``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
from collections.abc import Callable

RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2

MAX_SWAPS = 8
"""How many times a swap-back may chase newer outside saves before it gives up (leaving the
stage file for startup recovery)."""

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

try:
    _renameat2: Callable[..., int] | None = ctypes.CDLL(None, use_errno=True).renameat2
except (AttributeError, OSError):  # not glibc 2.28+ or not Linux
    _renameat2 = None


def available() -> bool:
    return _renameat2 is not None


def renameat2(dfd: int, src: str, dst: str, flags: int) -> bool:
    """``renameat2`` within the folder ``dfd``. ``False`` when the system or the filesystem
    does not offer it (the caller falls back to ``rename``); any other failure raises."""
    if _renameat2 is None:
        return False
    if _renameat2(dfd, os.fsencode(src), dfd, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), dst)


def read_at(dfd: int, name: str, cap: int) -> tuple[bytes, os.stat_result]:
    """Up to ``cap`` bytes of the regular file ``name`` (no symlink followed) and its stat."""
    fd = os.open(name, _READ_FLAGS, dir_fd=dfd)
    try:
        st = os.fstat(fd)
        chunks: list[bytes] = []
        left = cap
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def check_out(
    dfd: int, stage: str, previous: bytes
) -> tuple[None, os.stat_result] | tuple[int, os.stat_result]:
    """After an exchange, look at the file that came out (at ``stage``). If it holds exactly
    ``previous``, its name is removed and an open descriptor of it is returned with its stat,
    for :func:`late_save`; otherwise ``(None, stat)`` and the file stays at ``stage``."""
    fd = os.open(stage, _READ_FLAGS, dir_fd=dfd)
    try:
        st = os.fstat(fd)
        data = os.pread(fd, len(previous) + 1, 0)
        while len(data) <= len(previous):
            more = os.pread(fd, len(previous) + 1 - len(data), len(data))
            if not more:
                break
            data += more
        if data != previous:
            os.close(fd)
            return None, st
        os.unlink(stage, dir_fd=dfd)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def late_save(fd: int, previous: bytes) -> bytes | None:
    """The bytes of the swapped-out file if they are no longer ``previous``: an editor that
    opened the note before the swap saved into it in place after the check. ``None`` when
    they did not change (a save after this look, into a file no longer at any path, cannot
    be seen by anyone)."""
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    data = b"".join(chunks)
    return None if data == previous else data


def swap_back(
    dfd: int,
    stage: str,
    name: str,
    ours: tuple[int, bytes],
    outside_ino: int,
    hit: Callable[[], None],
    keep: Callable[[bytes], bool],
) -> None:
    """Undo an exchange whose swapped-out file (inode ``outside_ino``, now at ``stage``) was
    not the checked one: the outside bytes go back to ``name``. ``ours`` is the inode number
    and bytes of hoard's staged file. After each swap the file that came out is looked at: if
    it is what the previous swap had put at the path (hoard's own bytes, untouched, after the
    first), nothing landed in between and it is removed; if it is anything else, a newer
    outside save landed on the path meanwhile, so it is swapped back to the path in turn.
    ``hit`` is the failpoint after each swap. An outside save that a newer one replaced at the
    path is handed to ``keep`` (the ledger) before its file is removed: the newer save may
    have been made from hoard's bytes, so the older one's change is not in it. The newer
    save is handed to ``keep`` too before it is swapped back: the swap that brought it out
    put the older save at the path for a moment, and an editor that read it there may save
    from it over the newer one."""
    last_in, moving_in = ours[0], outside_ino
    for _ in range(MAX_SWAPS):
        if not renameat2(dfd, stage, name, RENAME_EXCHANGE):
            raise OSError(errno.ENOTSUP, "the exchange worked once and then did not")
        hit()
        data, st = read_at(dfd, stage, len(ours[1]) + 1)
        if st.st_ino == last_in and (last_in != ours[0] or data == ours[1]):
            if last_in == ours[0] or keep(read_at(dfd, stage, 1 << 30)[0]):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(stage, dir_fd=dfd)
            break
        # A newer outside save came out, and the swap put the older one at the path: an
        # editor may read it there and later save from it over the newer one, once that is
        # back. The newer one goes into the ledger before it goes back.
        keep(read_at(dfd, stage, 1 << 30)[0])
        last_in, moving_in = moving_in, st.st_ino
    # else: the stage file stays; startup recovery keeps its bytes
    os.fsync(dfd)
