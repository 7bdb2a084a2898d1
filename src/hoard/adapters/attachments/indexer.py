"""Keeping attachments' text in step with the vault: a stat walk of the attachment files,
each new or changed one read (through the vault's safe open), hashed, and extracted in the
pool unless its hash is cached already; gone ones forgotten. In a server this runs in a
background thread of its own at low priority (a search never waits for an extraction); a
one-shot command runs it when asked (``hoard index``).

Nothing is created in the state folder until the vault holds an attachment: a vault
without any behaves as if the feature were not there.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hoard.adapters.attachments.plan import count_cap, plan_pages
from hoard.adapters.attachments.pool import ExtractorPool
from hoard.adapters.attachments.store import AttachmentStore, FileRow, PageHit
from hoard.adapters.fs.background import lower_this_thread
from hoard.adapters.fs.file_walk import scan_files
from hoard.adapters.fs.vault import Vault
from hoard.core.attachments import AttachmentKind, AttachmentLimits, Extracted, attachment_kind
from hoard.core.config import AttachmentsConfig
from hoard.core.errors import HoardError, NotFound, TooLarge
from hoard.core.ranking import RankingSettings

log = logging.getLogger("hoard.attachments")

IDLE_WALK_S = 30.0
"""A server with no watcher (or nothing said by it) walks the attachments this often."""

SCORE_ROUNDING = 1.0001
"""A hit's score is rounded to six significant digits: the ceiling, raised by more than
that, still bounds it."""

Progress = Callable[[int, int], None]


@dataclass
class AttachmentReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    extracted: int = 0
    """Files whose text was read now (the others' hashes were cached)."""
    pages: int = 0
    """Pages extracted now."""
    elapsed_ms: float = 0.0
    problems: list[tuple[str, str, str]] = field(default_factory=list)
    """``(path, problem, detail)`` of every attachment listed instead of indexed."""
    present: bool = False
    """The vault has (or had) attachments: ``attachments.db`` is there."""
    files: int = 0
    """Attachments known after the walk (indexed or listed)."""
    total_pages: int = 0
    """Pages indexed after the walk."""


def limits_of(cfg: AttachmentsConfig) -> AttachmentLimits:
    mib = 1024 * 1024
    return AttachmentLimits(
        max_bytes=cfg.max_mb * 1000 * 1000,
        max_pages=cfg.max_pages,
        time_s=float(cfg.time_s),
        memory_bytes=cfg.memory_mb * mib,
    )


class Attachments:
    """The attachments of one vault: their walk, extraction, cache and search."""

    def __init__(self, vault: Vault, state_dir: Path, cfg: AttachmentsConfig) -> None:
        self.vault = vault
        self.limits = limits_of(cfg)
        self.tesseract = shutil.which("tesseract") if cfg.ocr else None
        key = json.dumps(
            [
                self.limits.max_bytes,
                self.limits.max_pages,
                self.limits.time_s,
                self.limits.memory_bytes,
                bool(self.tesseract),
            ]
        )
        self.store = AttachmentStore(state_dir / "attachments.db", key)
        self._pool: ExtractorPool | None = None
        self._pool_lock = threading.Lock()
        self._opened = False
        self._sync_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def pool(self) -> ExtractorPool:
        """The extraction processes' pool, made on first use (the first extraction): a
        search, a read from the cache or a walk that finds nothing new never starts a
        worker. Made after :meth:`close`, it is closed at once (an extraction then fails as on a
        closed pool)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ExtractorPool(self.limits, workers=2)
                if self._stop.is_set():
                    self._pool.close()
            return self._pool

    def kind(self, rel: str) -> AttachmentKind | None:
        return attachment_kind(rel, ocr=self.tesseract is not None)

    def _accept(self, rel: str) -> bool:
        return self.kind(rel) is not None

    def _ready(self, create: bool) -> bool:
        """Open ``attachments.db`` (making it only when ``create``); is it there?"""
        if not self._opened:
            if not create and not self.store.exists():
                return False
            self.store.open()
            self._opened = True
        return True

    # -- the walk --------------------------------------------------------------------------

    def sync(self, progress: Progress | None = None) -> AttachmentReport:
        """Bring the cache in step with the files; what changed and what is listed. A
        damaged ``attachments.db`` is made anew and every file read again."""
        try:
            return self._sync(progress)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            log.warning("making attachments.db anew: %s", exc)
            with self._sync_lock:
                self.store.reset()
            return self._sync(progress)

    def _sync(self, progress: Progress | None) -> AttachmentReport:
        t0 = time.perf_counter()
        with self._sync_lock:
            on_disk = scan_files(self.vault, self._accept)
            report = AttachmentReport()
            if not self._ready(create=bool(on_disk)):
                return report
            known = self.store.known_files()
            gone = [p for p in known if p not in on_disk]
            if gone:
                self.store.remove_files(gone)
            changed = sorted(p for p, st in on_disk.items() if known.get(p) != st)
            for i, rel in enumerate(changed):
                if self._stop.is_set():
                    break
                if progress is not None:
                    progress(i, len(changed))
                self._index_file(rel, on_disk[rel], report)
                report.updated += rel in known
                report.added += rel not in known
            report.removed = len(gone)
            if gone or changed:
                self.store.drop_orphans()
            report.problems = self.store.problems()
            report.present = True
            report.files, report.total_pages = self.store.counts()
        report.elapsed_ms = round((time.perf_counter() - t0) * 1000, 1)
        return report

    def _index_file(self, rel: str, stat: tuple[int, int], report: AttachmentReport) -> None:
        kind = self.kind(rel)
        if kind is None:
            return
        mtime_ns, size = stat
        try:
            _, data, size = self._read(rel)
        except HoardError as exc:
            problem = "too_large" if isinstance(exc, TooLarge) else "unreadable"
            self.store.put_file(
                FileRow(
                    path=rel,
                    mtime_ns=mtime_ns,
                    size=size,
                    sha256="",
                    kind=kind,
                    problem=problem,
                    detail=exc.message,
                ),
                _folder(rel),
            )
            return
        sha = hashlib.sha256(data).hexdigest()
        if not self.store.has_text(sha):
            found = self.pool.extract(kind, data, sha, self.tesseract)
            self.store.put_text(found)
            report.extracted += 1
            report.pages += len(found.pages)
        self.store.put_file(
            FileRow(
                path=rel,
                mtime_ns=mtime_ns,
                size=size,
                sha256=sha,
                kind=kind,
                problem=None,
                detail="",
            ),
            _folder(rel),
        )

    def _read(self, rel: str) -> tuple[str, bytes, int]:
        cap = self.limits.max_bytes
        found, data, size = self.vault.read_file(rel, cap + 1)
        if size > cap:
            raise TooLarge(f"{size} bytes; the limit is {cap}", path=rel, size=size, limit=cap)
        return found, data, size

    # -- reads -----------------------------------------------------------------------------

    def text_of(self, rel: str) -> Extracted:
        """The text of the attachment at ``rel`` as it is on disk now: from the cache by
        its hash, or extracted now (and cached). ``not_found`` for a file of no attachment
        kind; ``too_large`` over the size limit."""
        kind = self.kind(rel)
        if kind is None:
            raise NotFound(f"{rel!r} is not an attachment hoard reads", path=rel)
        _, data, _ = self._read(rel)
        sha = hashlib.sha256(data).hexdigest()
        if self._ready(create=True):
            cached = self.store.text(sha)
            if cached is not None:
                return cached
        found = self.pool.extract(kind, data, sha, self.tesseract)
        self.store.put_text(found)
        return found

    def search(self, expr: str, limit: int, folder: str | None) -> list[PageHit]:
        """Attachment pages matching an FTS5 expression (none while nothing is indexed).
        Never fails: an expression the pages cannot take (an ``fts`` query naming a note's
        column) or a broken ``attachments.db`` finds nothing, and the latter is logged."""
        try:
            if not self._ready(create=False) or self.store.page_count() == 0:
                return []
            return self.store.search(expr, limit, folder)
        except sqlite3.OperationalError as exc:
            log.debug("attachments left out of a search: %s", exc)
        except sqlite3.Error as exc:
            log.warning("attachments left out of a search: %s", exc)
        return []

    def search_groups(
        self,
        groups: list[list[str]],
        limit: int,
        folder: str | None,
        ranking: RankingSettings,
        beat: float | None = None,
    ) -> list[PageHit]:
        """Attachment pages matching a natural-mode query: ``groups`` are its words, each
        as its FTS5 strings (the word or phrase and its other spellings), OR-ed. Held to
        the notes' budget (see :mod:`.plan`); nothing is ranked when no page can score
        above ``beat`` (the last score of a page of notes already full). Never fails."""
        try:
            pages = self.store.page_count() if self._ready(create=False) else 0
            if pages == 0:
                return []
            cap = count_cap(ranking, pages)
            counts = [self.store.phrase_counts(g, cap) for g in groups]
            plan = plan_pages(groups, counts, pages, cap, ranking)
            if plan.ceiling == 0.0 or (beat is not None and plan.ceiling * SCORE_ROUNDING < beat):
                return []
            expr = " OR ".join(_group(groups[i]) for i in plan.kept)
            return self.store.search(expr, limit, folder)
        except sqlite3.OperationalError as exc:
            log.debug("attachments left out of a search: %s", exc)
        except sqlite3.Error as exc:
            log.warning("attachments left out of a search: %s", exc)
        return []

    def problems(self) -> list[tuple[str, str, str]]:
        return self.store.problems() if self._ready(create=False) else []

    # -- the server's background walk --------------------------------------------------------

    def start(self) -> None:
        """Walk now and whenever :meth:`kick` says files changed (or every
        :data:`IDLE_WALK_S`), in a low-priority thread."""
        self._thread = threading.Thread(target=self._run, name="hoard-attachments", daemon=True)
        self._thread.start()

    def kick(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        lower_this_thread()
        while not self._stop.is_set():
            try:
                report = self.sync()
                if report.extracted:
                    log.info("read %d attachment(s), %d page(s)", report.extracted, report.pages)
            except Exception:  # the walk must never take the server down
                log.exception("indexing attachments failed")
            self._wake.wait(IDLE_WALK_S)
            self._wake.clear()

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Wait until a walk is not running (tests, benchmarks)."""
        if self._sync_lock.acquire(timeout=timeout):
            self._sync_lock.release()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._pool_lock:
            pool = self._pool
        if pool is not None:
            pool.close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.store.close()


def _folder(rel: str) -> str:
    return rel.rpartition("/")[0]


def _group(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"
