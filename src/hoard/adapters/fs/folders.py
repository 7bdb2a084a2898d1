"""The one folder walker: every folder of the vault that hoard reads or writes in is opened
here, one component at a time relative to its parent's descriptor with ``O_NOFOLLOW``, so no
read or write ever goes through a symlink, and an entry stored decomposed (NFD, as macOS
makes them) is found by its NFC name.

One error mapping for every caller:

- a symlink on the way: ``path_rejected``;
- a regular file on the way: ``path_rejected`` when making the folders, else ``not_found``
  (nothing can be below a file);
- a missing folder, when not making it: ``not_found``;
- any other ``OSError`` is raised as it is (the caller says what failed, as ``io_error``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import unicodedata
from pathlib import Path

from hoard.core.errors import NotFound, PathRejected

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_folder(root: Path, rel_dir: str, *, create: bool = False, asked: str = "") -> int:
    """A descriptor of the folder ``rel_dir`` (``""``: the vault itself) under ``root``,
    making missing folders on the way when ``create``. ``asked`` is the path the caller
    asked about, named in the errors (default ``rel_dir``). The caller closes the
    descriptor."""
    asked = asked or rel_dir
    fd = os.open(root, DIR_FLAGS)
    try:
        for part in [p for p in rel_dir.split("/") if p]:
            nfd = _open_child(fd, on_disk_name(fd, part), create, asked)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(fd: int, part: str, create: bool, asked: str) -> int:
    try:
        try:
            return os.open(part, DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            return os.open(part, DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP or is_symlink(part, fd):
            raise PathRejected(f"path {asked!r} goes through a symlink", path=asked) from exc
        if exc.errno == errno.ENOTDIR and create:
            raise PathRejected(f"path {asked!r} goes through a file", path=asked) from exc
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise NotFound(f"no note at {asked!r}", path=asked) from exc
        raise


def on_disk_name(dir_fd: int, name: str) -> str:
    """The entry of this folder that ``name`` (NFC) identifies. Note identity is NFC, but a
    file made on macOS may be stored decomposed (NFD): such a name is found by comparing
    the folder's entries in NFC. An exact match always wins."""
    if name.isascii():
        return name
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return name
    except OSError:
        pass
    try:
        entries = os.listdir(dir_fd)
    except OSError:
        return name
    for entry in entries:
        if not entry.isascii() and unicodedata.normalize("NFC", entry) == name:
            return entry
    return name


def is_symlink(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
