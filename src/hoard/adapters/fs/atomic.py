"""Crash-safe file operations on the vault, and the per-path locks that serialise them.

Every change is: stage the new bytes in a hidden ``.hoard-stage-*`` file in the note's own
folder (same filesystem), ``fsync`` it, swap it with the target (``renameat2`` with
``RENAME_EXCHANGE``, then check that what came out is what the caller checked; see
:mod:`hoard.adapters.fs.exchange`; ``rename`` where that is missing), or ``link`` it for an
exclusive create, then ``fsync`` the folder. A crash at any point leaves the old bytes or the
new bytes, never a torn file; a leftover stage file is swept at startup. An I/O error at any
step fails the operation with the old bytes in place. Folders are opened one component at a
time with ``O_NOFOLLOW``: no write ever goes through a symlink.

Locks are ``flock`` on one lock file per note path under the state folder (not ``lockf``,
whose locks vanish when any descriptor of the file closes).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from hoard.adapters.fs import exchange, failpoints
from hoard.adapters.fs.folders import on_disk_name, open_folder
from hoard.adapters.fs.vault import Vault, is_own_stage, stage_name
from hoard.core.errors import Busy, Conflict, Exists, IoError, NotFound, PathRejected
from hoard.core.note import revision_of

log = logging.getLogger("hoard.atomic")

LOCK_TIMEOUT_S = 10.0

Keep = Callable[[bytes], bool]
"""Where a write hands bytes it must not lose (an outside save replaced during a swap-back);
``True`` once they are kept."""


def _no_keep(raw: bytes) -> bool:
    """Without a keeper the stage file stays, for startup recovery to keep."""
    return False


@contextlib.contextmanager
def path_lock(lock_dir: Path, rel: str, timeout: float | None = None) -> Iterator[None]:
    """Hold the exclusive lock for one note path (across threads and processes); ``busy``
    after ``timeout`` seconds (default :data:`LOCK_TIMEOUT_S`, read at call time)."""
    timeout = LOCK_TIMEOUT_S if timeout is None else timeout
    lock_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = hashlib.sha256(rel.encode("utf-8")).hexdigest()[:32] + ".lock"
    fd = os.open(lock_dir / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Busy(
                        f"{rel!r} is being written by someone else; try again", path=rel
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.02)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the flock


@contextlib.contextmanager
def locks(lock_dir: Path, rels: list[str]) -> Iterator[None]:
    """Several path locks, always taken in sorted order (no deadlocks between writers)."""
    with contextlib.ExitStack() as stack:
        for rel in sorted(set(rels)):
            stack.enter_context(path_lock(lock_dir, rel))
        yield


def _folder(vault: Vault, head: str, rel: str) -> int:
    """The note's folder, opened (and made) safely, as an I/O refusal if that fails."""
    try:
        return open_folder(vault.root, head, create=True, asked=rel)
    except OSError as exc:
        raise IoError(f"cannot open the folder of {rel!r}: {exc.strerror}", path=rel) from exc


def _split(rel: str) -> tuple[str, str]:
    head, _, name = rel.rpartition("/")
    return head, name


def _stage(dfd: int, data: bytes, mode: int, point: str, tag: str | None) -> str:
    """Write ``data`` to a new stage file in the folder ``dfd``, fsynced, its name carrying
    ``tag`` (the replica's, see :func:`~hoard.adapters.fs.vault.stage_name`). Returns it."""
    name = stage_name(tag, secrets.token_hex(8))
    fd = os.open(
        name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dfd
    )
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fchmod(fd, mode)
            failpoints.hit(f"{point}.staged")
            failpoints.hit(f"{point}.stage_fsync")
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dfd)
        raise
    return name


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def replace(
    vault: Vault,
    rel: str,
    data: bytes,
    point: str = "write",
    previous: bytes | None = None,
    keep: Keep | None = None,
) -> None:
    """Atomically put ``data`` at ``rel`` (creating folders), keeping an existing file's mode,
    if the file still holds ``previous`` (the bytes whose revision the caller checked;
    ``None``: no file), else ``conflict`` (``exists``) with the outside bytes left in place.
    If the folder cannot be synced after the swap, the old state is put back, so a failed
    write changes nothing. Failpoints: ``{point}.staged``, ``.stage_fsync``, ``.exchanged``,
    ``.swapped_back``, ``.renamed``, ``.dir_fsync``. ``keep`` receives the bytes of an outside
    save that a newer outside save replaced during a swap-back (to go into the ledger)."""
    head, name = _split(rel)
    dfd = _folder(vault, head, rel)
    try:
        name = on_disk_name(dfd, name)
        old: os.stat_result | None
        try:
            old = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            if not stat.S_ISREG(old.st_mode):
                raise PathRejected(f"{rel!r} is not a regular file", path=rel)
            mode = stat.S_IMODE(old.st_mode)
        except FileNotFoundError:
            old, mode = None, _default_mode()
        stage = _stage(dfd, data, mode, point, vault.stage_tag)
        held = _swap_in(dfd, stage, name, rel, data, previous, point, keep or _no_keep)
        try:
            failpoints.hit(f"{point}.renamed")
            try:
                failpoints.hit(f"{point}.dir_fsync")
                os.fsync(dfd)
            except OSError:
                _put_back(dfd, name, previous, mode, old, vault.stage_tag)
                raise
            late = None if held is None else exchange.late_save(held[0], previous or b"")
        finally:
            if held is not None:
                os.close(held[0])
        if late is not None:
            _put_late(dfd, name, rel, late, data, mode, point, keep or _no_keep, vault.stage_tag)
    except OSError as exc:
        raise IoError(f"writing {rel!r} failed: {exc.strerror or exc}", path=rel) from exc
    finally:
        os.close(dfd)


def _swap_in(
    dfd: int,
    stage: str,
    name: str,
    rel: str,
    data: bytes,
    previous: bytes | None,
    point: str,
    keep: Keep,
) -> tuple[int, os.stat_result] | None:
    """Put the staged file at ``name`` if the path still holds ``previous`` (``None``: no
    file), else answer ``exists`` / ``conflict`` with the outside bytes left at the path
    (:mod:`hoard.adapters.fs.exchange`). Failpoints ``{point}.exchanged`` (after the swap,
    before the check) and ``{point}.swapped_back`` (after a swap-back, before the answer).
    Returns an open descriptor of the swapped-out file and its stat when it was checked."""
    flags = exchange.RENAME_NOREPLACE if previous is None else exchange.RENAME_EXCHANGE
    try:
        ours = os.stat(stage, dir_fd=dfd, follow_symlinks=False).st_ino
        swapped = exchange.renameat2(dfd, stage, name, flags)
        if not swapped:
            os.rename(stage, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(stage, dir_fd=dfd)
        if isinstance(exc, FileExistsError):
            raise Exists(
                f"{rel!r} was created by someone else meanwhile", _revision(dfd, name)
            ) from exc
        if isinstance(exc, FileNotFoundError) and previous is not None:
            raise Conflict(
                f"{rel!r} was removed or moved while it was being written", None
            ) from exc
        raise
    if not swapped or previous is None:
        return None
    failpoints.hit(f"{point}.exchanged")
    fd, st = exchange.check_out(dfd, stage, previous)
    if fd is not None:
        return fd, st
    # An editor may have read hoard's bytes in the moment they were at the path, and save
    # from them later: the save that was swapped out goes into the ledger first.
    keep(exchange.read_at(dfd, stage, 1 << 30)[0])
    hit = functools.partial(failpoints.hit, f"{point}.swapped_back")
    exchange.swap_back(dfd, stage, name, (ours, data), st.st_ino, hit, keep)
    raise Conflict(
        f"{rel!r} was saved by someone else while it was being written; their bytes stay",
        _revision(dfd, name),
    )


def _put_late(
    dfd: int,
    name: str,
    rel: str,
    late: bytes,
    data: bytes,
    mode: int,
    point: str,
    keep: Keep,
    tag: str | None,
) -> None:
    """An editor saved into the swapped-out file in place after it was checked: its bytes go
    back to the path (if the path still holds ``data``) and the write is a ``conflict``."""
    stage = _stage(dfd, late, mode, point, tag)
    ours = os.stat(stage, dir_fd=dfd, follow_symlinks=False).st_ino
    if exchange.renameat2(dfd, stage, name, exchange.RENAME_EXCHANGE):
        fd, st = exchange.check_out(dfd, stage, data)
        if fd is not None:
            os.close(fd)
        else:  # a save landed over hoard's bytes; the late bytes were at the path meanwhile
            keep(exchange.read_at(dfd, stage, 1 << 30)[0])
            hit = functools.partial(failpoints.hit, f"{point}.swapped_back")
            exchange.swap_back(dfd, stage, name, (ours, late), st.st_ino, hit, keep)
        os.fsync(dfd)
    raise Conflict(
        f"{rel!r} was saved in place by someone else while it was being written; "
        "their bytes are back at the path",
        _revision(dfd, name),
    )


def _revision(dfd: int, name: str) -> str | None:
    try:
        data, _ = exchange.read_at(dfd, name, 1 << 30)
    except OSError:
        return None
    return revision_of(data)


def _put_back(
    dfd: int,
    name: str,
    previous: bytes | None,
    mode: int,
    old: os.stat_result | None,
    tag: str | None,
) -> None:
    """Undo a rename whose folder could not be synced: the old bytes and times go back
    (best effort; the caller reports the original error either way)."""
    try:
        if previous is None:
            os.unlink(name, dir_fd=dfd)
        else:
            back = _stage(dfd, previous, mode, "rollback", tag)
            if old is not None:
                os.utime(
                    back, ns=(old.st_atime_ns, old.st_mtime_ns), dir_fd=dfd, follow_symlinks=False
                )
            os.rename(back, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as exc:
        log.error("could not undo a failed write of %s: %s", name, exc)


def create_exclusive(vault: Vault, rel: str, data: bytes, point: str = "restore") -> None:
    """Put ``data`` at ``rel`` only if nothing is there, atomically (``link`` never
    replaces). Failpoints: ``{point}.staged``, ``.stage_fsync``, ``.linked``."""
    head, name = _split(rel)
    dfd = _folder(vault, head, rel)
    try:
        name = on_disk_name(dfd, name)
        stage = _stage(dfd, data, _default_mode(), point, vault.stage_tag)
        try:
            os.link(stage, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
        except FileExistsError as exc:
            raise Exists(f"{rel!r} exists; restore never overwrites", None) from exc
        finally:
            with contextlib.suppress(OSError):
                os.unlink(stage, dir_fd=dfd)
        failpoints.hit(f"{point}.linked")
        os.fsync(dfd)
    except OSError as exc:
        raise IoError(f"creating {rel!r} failed: {exc.strerror or exc}", path=rel) from exc
    finally:
        os.close(dfd)


def unlink(vault: Vault, rel: str) -> None:
    head, name = _split(rel)
    try:
        dfd = open_folder(vault.root, head, asked=rel)
        try:
            os.unlink(on_disk_name(dfd, name), dir_fd=dfd)
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except (OSError, NotFound) as exc:
        why = exc.strerror if isinstance(exc, OSError) else exc.message
        raise IoError(f"removing {rel!r} failed: {why or exc}", path=rel) from exc


def stage_files(vault: Vault) -> list[str]:
    """Every stage file of this process in the vault (vault-relative; see
    :func:`~hoard.adapters.fs.vault.is_own_stage`), as a crash left them."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault.root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in (".git",)]
        found += [
            os.path.relpath(os.path.join(dirpath, f), vault.root)
            for f in filenames
            if is_own_stage(f, vault.stage_tag)
        ]
    return sorted(found)


def read_stage(vault: Vault, stage_rel: str, cap: int) -> bytes:
    """The bytes of a stage file (at most ``cap``), no symlink followed."""
    head, name = _split(stage_rel)
    dfd = open_folder(vault.root, head, asked=stage_rel)
    try:
        return exchange.read_at(dfd, name, cap)[0]
    finally:
        os.close(dfd)


def exchange_back(vault: Vault, stage_rel: str, rel: str) -> bool:
    """Swap a stage file with the note ``rel`` of the same folder (startup recovery of an
    exchange a crash interrupted); ``False`` where the system cannot exchange."""
    head, name = _split(stage_rel)
    dfd = open_folder(vault.root, head, asked=stage_rel)
    try:
        done = exchange.renameat2(
            dfd, name, on_disk_name(dfd, _split(rel)[1]), exchange.RENAME_EXCHANGE
        )
        os.fsync(dfd)
        return done
    finally:
        os.close(dfd)


def sweep_staging(vault: Vault) -> list[str]:
    """Remove this process's stage files a crash left behind (another replica's stay: its
    write may be under way); returns what was removed."""
    removed: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault.root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in (".git",)]
        for f in filenames:
            if is_own_stage(f, vault.stage_tag):
                full = os.path.join(dirpath, f)
                with contextlib.suppress(OSError):
                    os.unlink(full)
                    removed.append(os.path.relpath(full, vault.root))
    return removed
