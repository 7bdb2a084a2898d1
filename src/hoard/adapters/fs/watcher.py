"""A background file watcher (inotify through ``watchfiles``) that keeps the index fresh.

Changes to ``.md`` files are applied path by path; anything else (a folder renamed, created
or removed, an event queue overflow) triggers a full stat walk, which costs tens of
milliseconds. Each batch is applied in the watcher's own thread, so searches never wait.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

from hoard.adapters.index.store import Index

log = logging.getLogger("hoard.watcher")


class Watcher:
    def __init__(self, root: Path, index: Index) -> None:
        self.root = root
        self.index = index
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.ready = threading.Event()
        self.failed: str | None = None
        self.on_error: Callable[[BaseException], None] | None = None
        """Told when applying changes to the index failed (to repair a broken index)."""
        self.on_other_files: Callable[[], None] | None = None
        """Told when something that is not a note changed (attachments, folders)."""

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self.failed is None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hoard-watcher", daemon=True)
        self._thread.start()
        self.ready.wait(timeout=5.0)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except ImportError as exc:  # pragma: no cover - a dependency
            self.failed = f"watchfiles unavailable: {exc}"
            self.ready.set()
            return
        try:
            for changes in watch(
                self.root,
                stop_event=self._stop,
                debounce=60,
                step=20,
                rust_timeout=100,
                yield_on_timeout=True,
                recursive=True,
                raise_interrupt=False,
            ):
                self.ready.set()
                if changes:
                    self._apply({p for _, p in changes})
        except Exception as exc:  # the watcher must never take the server down
            self.failed = f"{type(exc).__name__}: {exc}"
            log.warning("file watcher stopped (%s); falling back to stat walks", self.failed)
        finally:
            self.ready.set()

    def _apply(self, paths: set[str]) -> None:
        rels: list[str] = []
        full = False
        root = str(self.root)
        for p in paths:
            if not p.startswith(root + "/"):
                continue
            rel = unicodedata.normalize("NFC", p[len(root) + 1 :])
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            if not rel.lower().endswith(".md"):
                full = True  # a folder moved or vanished: its notes changed with it
                continue
            rels.append(rel)
        if full and self.on_other_files is not None:
            self.on_other_files()
        try:
            if full:
                self.index.sync()
            elif rels:
                self.index.refresh_paths(rels)
        except Exception as exc:
            log.warning("index refresh failed: %s", exc)
            if self.on_error is not None:
                self.on_error(exc)
