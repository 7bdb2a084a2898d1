"""Reading and parsing notes in worker processes during a full rebuild.

A rebuild spends its time in two places: reading and parsing each note (Python: YAML,
links, folding) and inserting it (SQLite: FTS5 tokenizing). They overlap here: worker
processes prepare notes (:func:`hoard.adapters.index.rows.prepare_note`) a few chunks ahead,
in order, while the caller inserts. Workers are spawned, never forked (the server has
threads), and only for vaults large enough to pay for starting them; if they cannot start
or die, the rest is prepared in this process.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hoard.adapters.fs import failpoints
from hoard.adapters.fs.vault import FileStat, Vault
from hoard.adapters.index.rows import PreparedNote, prepare_note
from hoard.core.config import Config

if TYPE_CHECKING:
    from concurrent.futures import Future

log = logging.getLogger(__name__)

PARALLEL_FROM = 2000
"""Fewer notes than this are prepared in this process (starting workers takes ~0.5 s)."""
CHUNK = 256
"""Notes per task."""
AHEAD = 4
"""Tasks in flight per worker: enough to keep them busy, few enough to bound memory."""

_worker: tuple[Vault, Config] | None = None


def _init(root: str, config: Config) -> None:
    global _worker
    _worker = (Vault(Path(root), config), config)


def _prepare_chunk(stats: list[FileStat]) -> list[PreparedNote | None]:
    assert _worker is not None, "worker not initialised"
    failpoints.hit("rebuild.worker")
    vault, config = _worker
    return [prepare_note(vault, config, fs) for fs in stats]


def worker_count(notes: int, cores: int | None = None) -> int:
    """Workers for a rebuild of ``notes`` notes on ``cores`` cores (default: this process's):
    none for a small vault or a single core, else one per core, at most 4. (25,000
    generated notes on 2 cores: 24.5 s in one process, 16.7 s with one worker, 13.8 s with
    two.)"""
    if notes < PARALLEL_FROM:
        return 0
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(4, cores)


def prepared_notes(
    vault: Vault, config: Config, stats: Sequence[FileStat], workers: int | None = None
) -> Iterator[PreparedNote | None]:
    """Each note of ``stats`` prepared, in order (``None`` for one that could not be read)."""
    n = worker_count(len(stats)) if workers is None else workers
    done = 0
    if n > 0:
        try:
            for note in _in_workers(vault, config, stats, n):
                yield note
                done += 1
        except Exception as exc:  # a worker died or could not start: go on here
            log.warning("preparing notes in this process from note %d on: %r", done, exc)
    for fs in stats[done:]:
        yield prepare_note(vault, config, fs)


def _in_workers(
    vault: Vault, config: Config, stats: Sequence[FileStat], workers: int
) -> Iterator[PreparedNote | None]:
    # Loaded here, not with the module: a search or a small vault never starts workers.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [list(stats[i : i + CHUNK]) for i in range(0, len(stats), CHUNK)]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        workers, mp_context=ctx, initializer=_init, initargs=(str(vault.root), config)
    ) as pool:
        pending: deque[Future[list[PreparedNote | None]]] = deque()
        todo = iter(chunks)
        for chunk in todo:
            pending.append(pool.submit(_prepare_chunk, chunk))
            if len(pending) >= workers * AHEAD:
                break
        while pending:
            batch = pending.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                pending.append(pool.submit(_prepare_chunk, nxt))
            yield from batch
