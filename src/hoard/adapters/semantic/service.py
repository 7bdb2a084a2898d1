"""The semantic side of search: a local sentence-embedding model, one vector a
note, kept up to date in the background by the index's own change detection.

:class:`Semantic` loads the model and the vector store in a thread of its own, embeds every
note whose vector is missing or was made from another revision, and then watches the index
(its content token, once a second) for changed notes. The lexical index never waits for it:
until the model is loaded it answers nothing (``None``), and a note without a vector yet is
only found lexically. Private notes are embedded like every other (the model runs here);
who may see a result is the caller's ``allowed`` filter, applied before anything is ranked.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hoard.adapters.index.store import Index
from hoard.adapters.semantic.runtime import RuntimeMissing, load_model, open_store
from hoard.core.config import SemanticConfig
from hoard.core.semantic import embedding_text

if TYPE_CHECKING:
    from hoard.adapters.semantic.encoder import MiniLM
    from hoard.adapters.semantic.store import VectorStore

log = logging.getLogger("hoard.semantic")

BATCH = 32
"""Notes embedded between two commits: what a killed build loses at most."""

BUILD_THREADS = max(1, min(2, os.cpu_count() or 1))
"""Notes embedded at once while building (the issue's machine has 2 cores; a search that
arrives meanwhile waits for a core, a build of 13k notes takes half as long)."""

POLL_S = 1.0
"""How often an idle builder looks at the index's content token."""

PRODUCT_THREADS = 4
"""Vector products running at once (one a search in flight, beside its lexical side)."""

Allowed = Callable[[str], bool]
Nearest = list[tuple[str, float]]
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class SemanticStatus:
    state: str
    """``loading``, ``building``, ``ready`` or ``failed``."""
    embedded: int
    notes: int
    error: str | None = None


class Semantic:
    """The model, the vectors and the background builder of one vault. Thread-safe."""

    def __init__(self, index: Index, state_dir: Path, config: SemanticConfig) -> None:
        self.index = index
        self.path = state_dir / "semantic.db"
        self.config = config
        self.model: MiniLM | None = None
        self.store: VectorStore | None = None
        self.error: str | None = None
        self._state = "loading"
        self._notes = 0
        self._seen: object = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._load_lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._products = ThreadPoolExecutor(PRODUCT_THREADS, thread_name_prefix="hoard-vectors")

    # -- lifecycle ------------------------------------------------------------------------------

    def load(self) -> bool:
        """Load the model and open the vectors (once); False, with :attr:`error`, on failure."""
        with self._load_lock:
            if self.store is not None:
                return True
            if self.error is not None:
                return False
            try:
                model = load_model()
                self.store = open_store(self.path, self.config.text_chars, model)
                self.model = model
            except (RuntimeMissing, OSError, sqlite3.Error) as exc:
                self.error = str(exc)
                self._state = "failed"
                log.warning("semantic search is off: %s", exc)
                return False
            return True

    def start(self) -> None:
        """Load and build in a background thread, then keep the vectors up to date."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="hoard-semantic", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        if not self.load():
            return
        while not self._stop.is_set():
            token = self.index.reader_token()
            if token != self._seen:
                try:
                    self.catch_up()
                    self._seen = token
                except (sqlite3.Error, OSError) as exc:
                    log.warning("embedding notes failed (retrying): %s", exc)
            self._wake.wait(POLL_S)
            self._wake.clear()

    def kick(self) -> None:
        """Look at the index now rather than at the next poll."""
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self._products.shutdown(wait=True)
        if self.store is not None:
            self.store.close()

    # -- building -------------------------------------------------------------------------------

    def catch_up(self, progress: ProgressFn | None = None) -> int:
        """Embed every note whose vector is missing or stale, drop vectors of notes gone;
        the number of notes embedded. Commits every :data:`BATCH` notes (resumable)."""
        if not self.load():
            return 0
        assert self.model is not None and self.store is not None
        with self._build_lock:
            conn = self.index.reader()
            current = dict(conn.execute("SELECT path, revision FROM notes").fetchall())
            self._notes = len(current)
            stored = self.store.revisions()
            self.store.remove(p for p in stored if p not in current)
            todo = sorted(p for p, rev in current.items() if stored.get(p) != rev)
            done = 0
            self._state = "building" if todo else "ready"
            for start in range(0, len(todo), BATCH):
                if self._stop.is_set():
                    break
                batch = self._texts(conn, todo[start : start + BATCH])
                vectors = self.model.embed_many([text for _, _, text in batch], BUILD_THREADS)
                self.store.put(
                    (p, rev, vec) for (p, rev, _), vec in zip(batch, vectors, strict=True)
                )
                done += len(batch)
                if progress is not None:
                    progress(done, len(todo))
            self._state = "ready"
            return done

    def _texts(self, conn: sqlite3.Connection, paths: list[str]) -> list[tuple[str, str, str]]:
        chars = self.config.text_chars
        marks = ",".join("?" * len(paths))
        rows = conn.execute(
            f"SELECT n.path, n.revision, n.title, substr(f.body, 1, {chars * 2}) "
            f"FROM notes n JOIN notes_fts f ON f.rowid = n.id WHERE n.path IN ({marks})",
            paths,
        ).fetchall()
        return [(p, rev, embedding_text(title, body or "", chars)) for p, rev, title, body in rows]

    # -- answering ------------------------------------------------------------------------------

    def has_vectors(self) -> bool:
        """Does the vector store exist on disk (it may still be empty)?"""
        return self.path.is_file()

    def status(self) -> SemanticStatus:
        embedded = len(self.store) if self.store is not None else 0
        return SemanticStatus(self._state, embedded, self._notes, self.error)

    def ready(self) -> bool:
        """Are the model and the vectors there (some vectors, at least)?"""
        return self.store is not None and len(self.store) > 0

    def search(self, text: str, n: int, allowed: Allowed | None) -> Future[Nearest] | None:
        """The ``n`` notes nearest to ``text`` that ``allowed`` lets through, with their
        cosine; ``None`` while the model or the vectors are not there.

        The query is embedded now, on this thread (and onnxruntime's); the product with
        the stored vectors, ~1.5-2 ms of one core on 13k notes, runs on a thread of its own
        while the caller goes on (the lexical search, ~3 ms of the other core): the answer
        is a future the blend waits for. Measured in process on zk, 500 queries: the model
        added 7.9 and 7.5 ms with the product in line, 7.0 and 6.6 ms beside."""
        model, store = self.model, self.store
        if model is None or store is None or len(store) == 0 or not text.strip():
            return None
        query = model.embed_query(text)
        try:
            return self._products.submit(store.nearest, query, n, allowed)
        except RuntimeError:  # closing: the search goes on lexically, and says so
            return None

    def near(self, text: str, n: int, allowed: Allowed | None) -> list[tuple[str, float]] | None:
        """:meth:`search` for a note's own text rather than a question (not remembered with
        the queries); ``None`` while the model or the vectors are not there."""
        model, store = self.model, self.store
        if model is None or store is None or len(store) == 0 or not text.strip():
            return None
        return store.nearest(model.embed(text), n, allowed)

    def prepare(self) -> None:
        """Load the model now when no background thread does (a one-shot CLI process)."""
        if self._thread is None:
            self.load()

    def similar(self, path: str, n: int, allowed: Allowed | None) -> list[tuple[str, float]] | None:
        """The ``n`` notes nearest to the note at ``path`` (not itself), its vector embedded
        now when the builder has not reached it; ``None`` when the model is not there or
        the note is not indexed."""
        model, store = self.model, self.store
        if model is None or store is None:
            return None
        vec = store.vector(path)
        if vec is None:
            texts = self._texts(self.index.reader(), [path])
            if not texts:
                return None
            vec = model.embed(texts[0][2])

        def others(p: str) -> bool:
            return p != path and (allowed is None or allowed(p))

        return store.nearest(vec, n, others)

    def wait_until_current(self, deadline_s: float) -> bool:
        """Block until every indexed note has its vector (tests, benchmarks); False at the
        deadline."""
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if self.store is not None and self._state == "ready":
                conn = self.index.reader()
                current = dict(conn.execute("SELECT path, revision FROM notes").fetchall())
                if current == self.store.revisions():
                    return True
            if self.error is not None:
                return False
            self.kick()
            time.sleep(0.05)
        return False
