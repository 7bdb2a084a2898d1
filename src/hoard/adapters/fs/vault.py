"""The vault on disk: safe reads, the note walk, live folder listings.

Every path goes through :func:`hoard.core.paths.normalize_rel_path` first, then is opened one
component at a time relative to the vault's directory descriptor with ``O_NOFOLLOW``: a
symlink anywhere in a note path is refused (hoard never follows links, in or out of the
vault), a FIFO never blocks (``O_NONBLOCK``), and only regular files are read.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hoard.adapters.fs.folders import on_disk_name, open_folder
from hoard.core.config import Config
from hoard.core.errors import HoardError, InvalidArgument, IoError, NotFound, PathRejected, TooLarge
from hoard.core.globs import matches_any
from hoard.core.paths import normalize_note_path, normalize_rel_path

STAGING_PREFIX = ".hoard-stage-"
"""The start of a stage file's name: ``STAGING_PREFIX`` + random hex for one process on the
state folder, ``STAGING_PREFIX`` + the replica's tag + ``.`` + random hex for a replica of a
shared store (a tag never holds a dot), so each replica's startup sweep finds its own."""


def stage_name(tag: str | None, token: str) -> str:
    """A stage file's name, with the replica's tag (``None``: the plain name)."""
    return f"{STAGING_PREFIX}{token}" if tag is None else f"{STAGING_PREFIX}{tag}.{token}"


def is_own_stage(name: str, tag: str | None) -> bool:
    """``name`` is a stage file of the replica tagged ``tag`` (``None``: a plain name, as one
    process on the state folder and hoard before replicas make them)."""
    if not name.startswith(STAGING_PREFIX):
        return False
    rest = name[len(STAGING_PREFIX) :]
    return "." not in rest if tag is None else rest.startswith(tag + ".")


_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str
    mtime_ns: int
    size: int


@dataclass(slots=True)
class Entry:
    path: str
    kind: str  # "note" | "folder" | "file"
    size: int
    mtime: float


class Vault:
    def __init__(self, root: Path, config: Config) -> None:
        try:
            self.root = root.resolve(strict=True)
        except OSError as exc:
            raise InvalidArgument(f"vault {root} does not exist", vault=str(root)) from exc
        if not self.root.is_dir():
            raise InvalidArgument(f"vault {root} is not a folder", vault=str(root))
        self.config = config
        self.stage_tag: str | None = None
        """Put in the names of this process's stage files (see :func:`stage_name`)."""

    # -- paths ------------------------------------------------------------------------------

    def is_ignored(self, rel: str) -> bool:
        return bool(self.config.ignore) and matches_any(rel, self.config.ignore)

    def _open_parent(self, rel: str) -> tuple[int, str]:
        """Open the folder holding ``rel`` (:func:`~hoard.adapters.fs.folders.open_folder`);
        return ``(fd, the file's name on disk)``."""
        head, _, name = rel.rpartition("/")
        fd = open_folder(self.root, head, asked=rel)
        return fd, on_disk_name(fd, name)

    def read_note(self, path: str, max_bytes: int | None = None) -> tuple[str, bytes, int]:
        """Read a note's bytes: ``(normalised path, bytes, full size)``. ``max_bytes`` caps
        what is read (the size is still the whole file's)."""
        return self._read_rel(normalize_note_path(path), max_bytes)

    def read_file(self, path: str, max_bytes: int | None = None) -> tuple[str, bytes, int]:
        """Like :meth:`read_note` for any file of the vault (an image a note shows): the same
        path rules (no ``..``, no dot-files, no symlinks), not only ``.md``."""
        return self._read_rel(normalize_rel_path(path), max_bytes)

    def _read_rel(self, rel: str, max_bytes: int | None) -> tuple[str, bytes, int]:
        if self.is_ignored(rel):
            raise NotFound(f"no note at {rel!r} (ignored by hoard.toml)", path=rel)
        try:
            dfd, name = self._open_parent(rel)
        except FileNotFoundError as exc:
            raise NotFound(f"no note at {rel!r}", path=rel) from exc
        try:
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dfd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathRejected(f"{rel!r} is a symlink", path=rel) from exc
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    raise NotFound(f"no note at {rel!r}", path=rel) from exc
                raise IoError(f"cannot open {rel!r}: {exc.strerror}", path=rel) from exc
        finally:
            os.close(dfd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise PathRejected(f"{rel!r} is not a regular file", path=rel)
            if self._refused_link(st):
                raise PathRejected(
                    f"{rel!r} has {st.st_nlink} hard links; hoard.toml refuses hard-linked notes",
                    path=rel,
                )
            limit = st.st_size if max_bytes is None else min(st.st_size, max_bytes)
            chunks: list[bytes] = []
            got = 0
            while got < limit:
                block = os.read(fd, min(1 << 20, limit - got))
                if not block:
                    break
                chunks.append(block)
                got += len(block)
            return rel, b"".join(chunks), st.st_size
        except OSError as exc:
            raise IoError(f"cannot read {rel!r}: {exc.strerror}", path=rel) from exc
        finally:
            os.close(fd)

    def _refused_link(self, st: os.stat_result) -> bool:
        return st.st_nlink > 1 and self.config.limits.refuse_hard_links

    def link_count(self, rel: str) -> int:
        """How many hard links the note's file has (1 for an ordinary file; 0 if gone)."""
        try:
            return os.lstat(self.root / rel).st_nlink
        except OSError:
            return 0

    def file_key(self, rel: str) -> tuple[int, int, int, int] | None:
        """``(device, inode, mtime_ns, size)`` of the regular file at ``rel`` from one
        ``lstat`` (no reading); ``None`` when it is gone or not a regular file. Equal keys
        name the same file in the same state, so a hash taken of it still holds."""
        try:
            st = os.lstat(self.root / rel)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)

    def plain_bytes(self, rel: str) -> bytes | None:
        """The bytes of the file at ``rel`` (``None``: absent), opened without following a
        symlink: a symlink or anything else that cannot be opened so is refused."""
        try:
            fd = os.open(self.root / rel, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise PathRejected(f"{rel!r} is not a plain file", path=rel) from exc
        with os.fdopen(fd, "rb") as f:
            return f.read()

    def regular_bytes(self, rel: str) -> bytes | None:
        """The bytes at ``rel`` when it is a regular file and no symlink, else ``None``."""
        full = self.root / rel
        return full.read_bytes() if full.is_file() and not full.is_symlink() else None

    def has_entry(self, rel: str) -> bool:
        """Is there anything at ``rel`` (a symlink counts by what it points to)?"""
        return (self.root / rel).exists()

    def has_file(self, rel: str) -> bool:
        """Is ``rel`` a regular file (or a symlink to one)?"""
        return (self.root / rel).is_file()

    def read_full(self, path: str, cap: int) -> tuple[str, bytes]:
        rel, data, size = self.read_note(path, max_bytes=cap + 1)
        if size > cap:
            raise TooLarge(f"{rel!r} is {size} bytes; the limit is {cap}", path=rel, size=size)
        return rel, data

    def note_size(self, path: object) -> int | None:
        """A note's size on disk from one ``lstat``, without reading it; ``None`` when
        ``path`` names no note (or is not a note path at all)."""
        try:
            st = self.stat_note(normalize_note_path(str(path)))
        except (HoardError, OSError):
            return None
        return None if st is None else st.size

    def file_size(self, path: str) -> int | None:
        """Like :meth:`note_size` for any file of the vault (``None``: no such file)."""
        try:
            rel = normalize_rel_path(path)
        except HoardError:
            return None
        st = None if self.is_ignored(rel) else self.stat_note(rel)
        return None if st is None else st.size

    def stat_note(self, rel: str) -> FileStat | None:
        """``lstat`` a normalised note path; ``None`` when it is gone or not a regular file."""
        try:
            st = os.lstat(self.root / rel)
        except FileNotFoundError:
            if rel.isascii():
                return None
            try:  # perhaps stored decomposed (NFD)
                dfd, name = self._open_parent(rel)
            except (OSError, HoardError):
                return None
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except OSError:
                return None
            finally:
                os.close(dfd)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or self._refused_link(st):
            return None
        return FileStat(rel, st.st_mtime_ns, st.st_size)

    # -- walking ----------------------------------------------------------------------------

    def scan(self) -> dict[str, tuple[int, int]]:
        """The stat walk: ``{path: (mtime_ns, size)}`` of every note, the same notes as
        :meth:`walk`, with as little Python per file as possible (it runs before searches
        when no watcher does)."""
        out: dict[str, tuple[int, int]] = {}
        ignore = self.config.ignore
        stack: list[tuple[str, str]] = [(str(self.root), "")]
        while stack:
            base, prefix = stack.pop()
            try:
                it = os.scandir(base)
            except OSError:
                continue
            with it:
                for entry in it:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            rel = prefix + name
                            if not (ignore and self.is_ignored(rel + "/")):
                                stack.append((entry.path, rel + "/"))
                            continue
                        if not name.endswith((".md", ".MD", ".Md", ".mD")):
                            continue
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if not stat.S_ISREG(st.st_mode) or self._refused_link(st):
                        continue
                    rel = prefix + name
                    if not rel.isascii():
                        rel = _nfc(rel)
                    if ignore and self.is_ignored(rel):
                        continue
                    out[rel] = (st.st_mtime_ns, st.st_size)
        return out

    def walk(self) -> Iterator[FileStat]:
        """Every note of the vault: ``.md`` regular files, no dot entries, no symlinks, no
        ignored globs. Order is unspecified."""
        yield from self._walk_dir("")

    def _walk_dir(self, rel_dir: str) -> Iterator[FileStat]:
        base = self.root / rel_dir if rel_dir else self.root
        try:
            it = os.scandir(base)
        except OSError:
            return
        subdirs: list[str] = []
        with it:
            for entry in it:
                name = entry.name
                if name.startswith("."):
                    continue
                rel = f"{rel_dir}/{name}" if rel_dir else name
                try:
                    if entry.is_symlink():
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if not self.is_ignored(rel + "/"):
                            subdirs.append(rel)
                        continue
                    if not name.lower().endswith(".md") or not entry.is_file(follow_symlinks=False):
                        continue
                    if self.config.ignore and self.is_ignored(rel):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if self._refused_link(st):
                    continue
                yield FileStat(_nfc(rel), st.st_mtime_ns, st.st_size)
        for sub in subdirs:
            yield from self._walk_dir(sub)

    def list_dir(
        self,
        path: str,
        recursive: bool,
        limit: int,
        visible: Callable[[str], bool] | None = None,
    ) -> tuple[str, list[Entry], bool]:
        """The live listing of a folder: ``(normalised path, entries, truncated)``. Entries
        ``visible`` refuses (folders are asked as ``path/``) are left out before the limit
        counts, so hidden notes neither shorten a page nor show as truncation."""
        rel = self._listable_folder(path)
        entries: list[Entry] = []
        stack = [rel]
        while stack:
            subdirs: list[str] = []
            for entry in self._folder_entries(stack.pop(), visible):
                if len(entries) >= limit:
                    return rel, entries, True
                entries.append(entry)
                if entry.kind == "folder":
                    subdirs.append(entry.path)
            if recursive:
                stack.extend(reversed(subdirs))
        return rel, entries, False

    def _listable_folder(self, path: str) -> str:
        """``path`` normalised, or ``not_found`` unless it is a real, not ignored folder."""
        rel = normalize_rel_path(path, allow_root=True)
        if rel:
            try:
                dfd, _ = self._open_parent(rel + "/x")
            except (FileNotFoundError, NotFound) as exc:
                raise NotFound(f"no folder at {rel!r}", path=rel) from exc
            os.close(dfd)
            if self.is_ignored(rel + "/"):
                raise NotFound(f"no folder at {rel!r} (ignored by hoard.toml)", path=rel)
        base = self.root / rel if rel else self.root
        if not base.is_dir() or base.is_symlink():
            raise NotFound(
                f"no folder at {rel!r}" + (" (it is a file)" if base.exists() else ""), path=rel
            )
        return rel

    def _folder_entries(
        self, folder: str, visible: Callable[[str], bool] | None
    ) -> Iterator[Entry]:
        """The listed entries directly in ``folder``, by name: no dot files, nothing ignored
        or invisible, no symlinks, sockets or devices."""
        try:
            with os.scandir(self.root / folder if folder else self.root) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        ignore = self.config.ignore
        for item in items:
            name = item.name
            if name.startswith("."):
                continue
            try:
                st = item.stat(follow_symlinks=False)  # a symlink is never followed
            except OSError:
                continue
            child = f"{folder}/{name}" if folder else name
            if not child.isascii():
                child = _nfc(child)
            if stat.S_ISDIR(st.st_mode):
                asked, kind, size = child + "/", "folder", 0
            elif stat.S_ISREG(st.st_mode):
                asked, size = child, st.st_size
                kind = "note" if name[-3:].lower() == ".md" else "file"
            else:
                continue  # symlinks, sockets, devices
            if ignore and self.is_ignored(asked):
                continue
            if visible is not None and not visible(asked):
                continue
            yield Entry(child, kind, size, st.st_mtime)


def _nfc(s: str) -> str:
    if s.isascii():
        return s
    return unicodedata.normalize("NFC", s)
