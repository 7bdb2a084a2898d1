"""The tokens file: who may call hoard over HTTP, stored as digests only.

Format (JSON, owner-only permissions, outside the vault)::

    {"version": 1, "callers": [
      {"name": "claude", "sha256": "<hex>", "scopes": ["read", "write"], "write_mode": "propose"}
    ]}

An entry may also hold ``"confirm_own": true`` (made with ``hoard token add --confirm-own``):
that caller may confirm the proposals it made itself. Absent means false. It may also
hold ``"read": ["team/**"]`` and ``"write": ["team/alice/**"]`` (``hoard token add --read
--write``): the folders (path globs) that caller may read and write; absent means no
limit (files written before these keys existed load unchanged).

The file is re-read whenever its (inode, size, mtime) changes, so ``hoard token revoke``
takes effect on the next request. Verification hashes the presented token and compares it
with *every* stored digest in constant time. In strict mode any doubt about the file
(missing, unreadable, malformed, a symlink, writable by group or others) makes
:meth:`TokenStore.status` report a problem, and the HTTP layer answers 503 to everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import threading
from pathlib import Path
from typing import Any

from hoard.core.errors import Exists, InvalidArgument, IoError, NotFound
from hoard.core.policy import SCOPES, WRITE_MODES, Caller, TokenEntry, parse_scopes
from hoard.core.reach import checked_reach, parse_globs

log = logging.getLogger("hoard.tokens")

TOKEN_PREFIX = "hoard_"


def default_tokens_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "hoard" / "tokens.json"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenFileError(Exception):
    """Why the tokens file cannot be trusted (strict mode turns this into 503)."""


def _parse(raw: bytes) -> list[TokenEntry]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TokenFileError(f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("callers"), list):
        raise TokenFileError('expected an object with a "callers" list')
    out: list[TokenEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(data["callers"]):
        if not isinstance(item, dict):
            raise TokenFileError(f"callers[{i}] is not an object")
        name, sha, scopes, mode = (item.get(k) for k in ("name", "sha256", "scopes", "write_mode"))
        if not isinstance(name, str) or not name or name in seen:
            raise TokenFileError(f"callers[{i}].name is missing or repeated")
        if (
            not isinstance(sha, str)
            or len(sha) != 64
            or any(c not in "0123456789abcdef" for c in sha)
        ):
            raise TokenFileError(f"callers[{i}].sha256 is not a lowercase hex SHA-256")
        if not isinstance(scopes, list) or not all(s in SCOPES for s in scopes):
            raise TokenFileError(f"callers[{i}].scopes must be a list of {', '.join(SCOPES)}")
        if mode not in WRITE_MODES:
            raise TokenFileError(f"callers[{i}].write_mode must be direct or propose")
        confirm_own = item.get("confirm_own", False)
        if not isinstance(confirm_own, bool):
            raise TokenFileError(f"callers[{i}].confirm_own must be true or false")
        seen.add(name)
        reads, writes = _globs(item, i, "read"), _globs(item, i, "write")
        out.append(
            TokenEntry(
                name=name,
                sha256=sha,
                scopes=tuple(scopes),
                write_mode=mode,
                confirm_own=confirm_own,
                read_globs=reads,
                write_globs=writes,
            )
        )
    return out


def _globs(item: dict[str, Any], i: int, key: str) -> tuple[str, ...]:
    """An entry's ``read`` or ``write`` globs (absent: none, no limit)."""
    value = item.get(key, [])
    if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
        raise TokenFileError(f"callers[{i}].{key} must be a list of path globs")
    try:
        return parse_globs(value)
    except ValueError as exc:
        raise TokenFileError(f"callers[{i}].{key}: {exc}") from exc


def _entry_object(e: TokenEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": e.name,
        "sha256": e.sha256,
        "scopes": list(e.scopes),
        "write_mode": e.write_mode,
    }
    if e.confirm_own:
        out["confirm_own"] = True
    if e.read_globs:
        out["read"] = list(e.read_globs)
    if e.write_globs:
        out["write"] = list(e.write_globs)
    return out


def holder_of(entries: list[TokenEntry], token: str) -> Caller | None:
    """The caller ``token`` belongs to, compared with *every* digest in constant time."""
    presented = digest(token)
    found: TokenEntry | None = None
    for entry in entries:
        if hmac.compare_digest(presented, entry.sha256) and found is None:
            found = entry
    return found.caller() if found is not None else None


def new_entry(
    name: str, scopes: str, write_mode: str, confirm_own: bool, read: str, write: str
) -> tuple[TokenEntry, str]:
    """A new caller (checked) and its token, which nothing keeps but its digest."""
    if not name or any(c.isspace() for c in name) or len(name) > 64:
        raise InvalidArgument("a caller name is 1-64 characters without white space")
    try:
        scope_set = parse_scopes(scopes)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from exc
    if write_mode not in WRITE_MODES:
        raise InvalidArgument("--write-mode must be direct or propose")
    try:
        reads, writes = checked_reach(read, write)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from exc
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    entry = TokenEntry(
        name=name,
        sha256=digest(token),
        scopes=tuple(s for s in SCOPES if s in scope_set),
        write_mode=write_mode,
        confirm_own=bool(confirm_own),
        read_globs=reads,
        write_globs=writes,
    )
    return entry, token


class TokenStore:
    def __init__(self, path: Path, strict: bool = False) -> None:
        self.path = path
        self.where = str(path)
        self.strict = strict
        self._lock = threading.Lock()
        self._sig: tuple[int, int, int, int] | None = None
        self._entries: list[TokenEntry] = []
        self._problem: str | None = None
        self._reported: str | None = None

    # -- reading -----------------------------------------------------------------------------

    def _refresh(self) -> None:
        try:
            st = os.lstat(self.path)
            sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
        except FileNotFoundError:
            sig = None
        except OSError as exc:
            self._set(None, [], f"tokens file {self.path} cannot be read: {exc.strerror}")
            return
        if sig is not None and sig == self._sig:
            return
        if sig is None:
            self._set(None, [], f"tokens file {self.path} does not exist")
            return
        try:
            entries = self._load_checked()
        except TokenFileError as exc:
            self._set(sig, [], f"tokens file {self.path}: {exc}")
            return
        self._set(sig, entries, None)

    def _load_checked(self) -> list[TokenEntry]:
        st = os.lstat(self.path)
        if stat.S_ISLNK(st.st_mode):
            raise TokenFileError("is a symlink")
        if not stat.S_ISREG(st.st_mode):
            raise TokenFileError("is not a regular file")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise TokenFileError("is writable by group or others (chmod 600 it)")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise TokenFileError(f"cannot be opened: {exc.strerror}") from exc
        try:
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read(4 * 1024 * 1024)
        except OSError as exc:
            raise TokenFileError(f"cannot be read: {exc.strerror}") from exc
        return _parse(raw)

    def _set(
        self, sig: tuple[int, int, int, int] | None, entries: list[TokenEntry], problem: str | None
    ) -> None:
        self._sig = sig
        self._entries = entries
        self._problem = problem
        if problem != self._reported:
            if problem is not None:
                log.error(
                    "%s%s",
                    problem,
                    " — strict mode: every request is refused (503)"
                    if self.strict
                    else " — no token is accepted",
                )
            self._reported = problem

    def status(self) -> str | None:
        """In strict mode, why every request must be refused; else ``None``."""
        with self._lock:
            self._refresh()
            return self._problem if self.strict else None

    def verify(self, token: str) -> Caller | None:
        """The caller a presented token belongs to, in constant time over the digests."""
        with self._lock:
            self._refresh()
            entries = self._entries if (self._problem is None or not self.strict) else []
        return holder_of(entries, token)

    def entries(self) -> list[TokenEntry]:
        with self._lock:
            self._refresh()
            return list(self._entries)

    def find(self, name: str) -> TokenEntry | None:
        return next((e for e in self.entries() if e.name == name), None)

    # -- writing (the CLI) ------------------------------------------------------------------------

    def _read_for_update(self) -> list[TokenEntry]:
        if not self.path.exists():
            return []
        try:
            return self._load_checked()
        except TokenFileError as exc:
            raise IoError(f"tokens file {self.path}: {exc}") from exc

    def _write(self, entries: list[TokenEntry]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        payload: dict[str, Any] = {
            "version": 1,
            "callers": [_entry_object(e) for e in entries],
        }
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, indent=2)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def add(
        self,
        name: str,
        scopes: str,
        write_mode: str,
        confirm_own: bool = False,
        read: str = "",
        write: str = "",
    ) -> tuple[TokenEntry, str]:
        entry, token = new_entry(name, scopes, write_mode, confirm_own, read, write)
        entries = self._read_for_update()
        if any(e.name == name for e in entries):
            raise Exists(f"caller {name!r} already has a token; revoke it first", None)
        self._write([*entries, entry])
        return entry, token

    def close(self) -> None:
        """Nothing is held open between calls."""

    def revoke(self, name: str) -> None:
        entries = self._read_for_update()
        kept = [e for e in entries if e.name != name]
        if len(kept) == len(entries):
            raise NotFound(f"no caller named {name!r}", name=name)
        self._write(kept)
