"""A deterministic, seeded generator of realistic Markdown vaults, for benchmarks.

The same ``(notes, seed)`` gives byte-identical files on every machine: all randomness comes from
one ``random.Random(seed)`` in a fixed order, weights are integers (no libm), dates count back
from a fixed day, and sets only answer membership. Text comes from clause pools drawn once over
a Zipf-weighted vocabulary, so a note costs a few list look-ups.

This module writes the files; :mod:`.vault_generator` plans and renders the notes and
:mod:`.vault_words` holds the word tables.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hoard.benchmark.vault_generator import INDEX_CAP, NoteGenerator, large_note_count

__all__ = ["INDEX_CAP", "GeneratedVault", "generate_vault", "large_note_count"]

WRITERS, SPAWN_WRITER_FROM = 2, 5000
"""From ``SPAWN_WRITER_FROM`` notes on, ``WRITERS`` child processes create the files while this
one generates (file creation is kernel time; a thread would fight the generator for the GIL)."""
_WRITER_SCRIPT = """
import os, sys
root, inp = sys.argv[1], sys.stdin.buffer
while head := inp.readline():
    n, m = map(int, head.split())
    with open(os.path.join(root, inp.read(n).decode("utf-8")), "wb") as fh:
        fh.write(inp.read(m))
"""


@dataclass(frozen=True)
class GeneratedVault:
    root: Path
    notes: int
    """Notes written, ``_INDEX.md`` files included."""
    bytes: int
    folders: int
    """Folders, each with an ``_INDEX.md``; the vault root is one."""
    links: int
    large_notes: list[str]
    seed: int


def _finish(proc: subprocess.Popen[bytes]) -> str:
    """Close a writer's input and wait: its error output if it failed, else ``""``."""
    assert proc.stdin is not None and proc.stderr is not None
    with contextlib.suppress(OSError):
        proc.stdin.close()
    with proc.stderr:  # closed here, not left to the garbage collector (a ResourceWarning)
        err = proc.stderr.read().decode("utf-8", errors="replace").strip()
    return (err or f"exit status {proc.returncode}")[-2000:] if proc.wait() else ""


def generate_vault(
    dest: Path,
    notes: int,
    seed: int = 20261130,
    progress: Callable[[int, int], None] | None = None,
) -> GeneratedVault:
    """Write a vault of exactly ``notes`` notes (``_INDEX.md`` files included) into ``dest``.

    ``dest`` is created if missing and must be empty otherwise (``FileExistsError``).
    ``progress(done, total)`` is called at most 100 times, the last with ``done == total``.
    """
    if notes < 10:
        raise ValueError("notes must be at least 10")
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FileExistsError(f"{dest} exists and is not empty")
    g = NoteGenerator(notes, seed)
    g.plan()
    for f in g.folders:
        (dest / f).mkdir(parents=True, exist_ok=True)
    cmd, pipe = [sys.executable, "-I", "-c", _WRITER_SCRIPT, str(dest)], subprocess.PIPE
    n_procs = WRITERS if notes >= SPAWN_WRITER_FROM and sys.executable else 0
    procs = [
        subprocess.Popen(cmd, stdin=pipe, stderr=pipe, bufsize=1 << 20) for _ in range(n_procs)
    ]
    total_bytes = done = pct = 0
    failure: OSError | None = None
    try:
        for rel, text in g.files():
            data = text.encode("utf-8")
            if procs:
                name, out = rel.encode("utf-8"), procs[done % len(procs)].stdin
                assert out is not None
                out.write(b"%d %d\n%s%s" % (len(name), len(data), name, data))
            else:
                with open(dest / rel, "wb") as fh:
                    fh.write(data)
            total_bytes, done = total_bytes + len(data), done + 1
            if progress is not None and done < notes and done * 100 // notes > pct:
                pct = done * 100 // notes
                progress(done, notes)
    except OSError as exc:  # a writer that died closes its pipe; its own error says why
        failure = exc
    finally:
        errors = [e for e in (_finish(p) for p in procs) if e] + ([str(failure)] if failure else [])
    if errors:
        raise OSError(f"writing the vault failed: {errors[0]}") from failure
    if progress is not None:
        progress(done, notes)
    large = [g.rel(i) for i in g.large]
    return GeneratedVault(
        root=dest,
        notes=done,
        bytes=total_bytes,
        folders=len(g.folders),
        links=g.n_links,
        large_notes=large,
        seed=seed,
    )
