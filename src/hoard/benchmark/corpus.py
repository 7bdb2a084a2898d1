"""The corpus a bench runs on: a copy of the owner's vault (never the vault itself) or a
generated one, and the inputs picked from it (notes to read, folders to list, notes with
links, prose for the scratch notes the bench writes)."""

from __future__ import annotations

import os
import random
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoard.benchmark.genvault import generate_vault
from hoard.core.config import Config
from hoard.core.errors import InvalidArgument
from hoard.core.globs import matches_any
from hoard.core.policy import is_protected

SCRATCH = "bench-scratch"
SMALL_BYTES = 4 * 1024
LARGE_BYTES = 250_000
FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
FILLER = (
    "A scratch note written by hoard bench to measure reads and writes. It says nothing of "
    "interest, and the bench archives it when it is done. "
)


def fingerprint(root: Path) -> dict[str, Any]:
    """A stat fingerprint of a folder: files, bytes, newest mtime (ns)."""
    files = size = newest = 0
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            st = os.lstat(os.path.join(dirpath, f))
            files += 1
            size += st.st_size
            newest = max(newest, st.st_mtime_ns)
    return {"files": files, "bytes": size, "newest_mtime_ns": newest}


def copy_vault(source: Path, dest: Path) -> float:
    """Copy ``source`` to ``dest`` (symlinks kept as links, ``.git`` left out: hoard skips
    dot-folders anyway); seconds taken."""
    t0 = time.perf_counter()
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    return time.perf_counter() - t0


def generate(
    dest: Path, notes: int, seed: int, progress: Callable[[int, int], None] | None
) -> dict[str, Any]:
    """A generated vault in ``dest`` (:mod:`hoard.benchmark.genvault`); what was generated."""
    try:
        gen = generate_vault(dest, notes, seed=seed, progress=progress)
    except ValueError as exc:
        raise InvalidArgument(f"--notes {notes}: {exc}") from exc
    return {
        "root": str(gen.root),
        "notes": gen.notes,
        "bytes": gen.bytes,
        "folders": gen.folders,
        "links": gen.links,
        "large_notes": list(gen.large_notes),
        "seed": gen.seed,
    }


def md_notes(root: Path) -> list[Path]:
    """Every visible ``.md`` file below ``root`` (dot-folders and dot-files skipped)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if f.lower().endswith(".md") and not f.startswith("."):
                out.append(Path(dirpath) / f)
    return out


def folder_sizes(root: Path) -> dict[str, tuple[int, int]]:
    """Vault-relative folder → (notes directly in it, visible entries directly in it)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = Path(dirpath).relative_to(root).as_posix()
        if rel == ".":
            continue
        notes = sum(1 for f in filenames if f.lower().endswith(".md") and not f.startswith("."))
        entries = len(dirnames) + sum(1 for f in filenames if not f.startswith("."))
        out[rel] = (notes, entries)
    return out


def body_of(text: str) -> str:
    return FRONTMATTER.sub("", text, count=1)


def text_pool(notes: Sequence[Path], rng: random.Random, want_bytes: int) -> str:
    """Realistic ASCII prose: the bodies of random vault notes, concatenated."""
    parts: list[str] = []
    size = 0
    for p in rng.sample(list(notes), len(notes)):
        body = body_of(p.read_text(encoding="utf-8", errors="replace"))
        body = body.encode("ascii", "ignore").decode().strip()
        if len(body) < 200:
            continue
        parts.append(body)
        size += len(body) + 2
        if size >= want_bytes:
            break
    return "\n\n".join(parts) or FILLER * 8


def scratch_note(title: str, size: int, pool: str, start: int) -> str:
    """A valid note of exactly ``size`` bytes (ASCII): contract frontmatter, then prose from
    ``pool`` starting near ``start``, ending with exactly one newline."""
    head = (
        f"---\ntitle: {title}\ntype: scratch\nstatus: draft\n"
        "tags: [bench, scratch]\nupdated: 2026-11-30\n---\n"
    )
    need = size - len(head) - 1
    if need < 2:
        raise ValueError(f"a {size}-byte note cannot hold its frontmatter")
    start %= max(1, len(pool) - need)
    body = pool[start : start + need]
    while len(body) < need:
        body += " " + pool[: need - len(body) - 1]
    # No whitespace tail: the file must end with exactly one newline.
    body = body[: need - 1].replace("\r", " ") + "."
    return head + body + "\n"


@dataclass
class Inputs:
    """What the phases call with. Call ``i`` of a phase uses item ``i`` (mod length)."""

    small: tuple[str, int]  # a visible note near 4 KB: (path, bytes)
    large: tuple[str, int] | None  # a visible note near 250 KB, or None: write a scratch one
    link_notes: list[str]  # notes with outgoing links
    lists: list[tuple[str, str, str, int, int]]  # (key, label, folder, entries, limit)
    pool: str  # prose for scratch notes
    facts: dict[str, Any] = field(default_factory=dict)


def visible_to_callers(path: str, config: Config) -> bool:
    """Whether a token caller sees ``path`` without a grant (not private, not protected)."""
    return not matches_any(path, config.private) and not is_protected(path, config.protected)


def pick_inputs(
    root: Path,
    notes: Sequence[Path],
    linked: Sequence[str],
    config: Config,
    rng: random.Random,
    count: int,
    read_cap: int,
) -> Inputs:
    """Choose the notes and folders the phases use; ``linked`` are notes with links."""
    sizes: list[tuple[str, int]] = []
    for p in notes:
        rel = p.relative_to(root).as_posix()
        if not rel.startswith(SCRATCH + "/") and visible_to_callers(rel, config):
            sizes.append((rel, p.stat().st_size))
    if not sizes:
        raise InvalidArgument(f"no note in {root} that a token caller may read")
    in_band = [s for s in sizes if 3000 <= s[1] <= 5000] or sizes
    small = min(in_band, key=lambda s: (abs(s[1] - SMALL_BYTES), s[0]))
    big = [s for s in sizes if 200_000 <= s[1] <= read_cap]
    large = min(big, key=lambda s: (abs(s[1] - LARGE_BYTES), s[0])) if big else None

    visible_links = [p for p in linked if visible_to_callers(p, config)]
    pool_links = visible_links or [s[0] for s in sizes]
    link_notes = rng.sample(pool_links, min(count, len(pool_links)))

    lists = list_targets(root, config, len(sizes))
    facts = {
        "small_note": {"path": small[0], "bytes": small[1]},
        "large_note": {"path": large[0], "bytes": large[1]} if large else "scratch",
        "notes_with_links": len(visible_links),
        "link_notes_sampled": len(link_notes),
        "list_folders": [{"path": f, "entries": e, "limit": lim} for _, _, f, e, lim in lists],
    }
    pool = text_pool(notes, rng, 320_000 if large is None else 40_000)
    return Inputs(
        small=small, large=large, link_notes=link_notes, lists=lists, pool=pool, facts=facts
    )


def list_targets(root: Path, config: Config, notes: int) -> list[tuple[str, str, str, int, int]]:
    """The folders the list phases use, as ``(key, label, folder, entries, limit)``: the
    smallest visible folder with at least 500 notes (else the largest), and the largest
    with a limit of 500 when it is another one; the root when there are no folders
    (``notes``: the visible notes in the vault)."""
    folders = {
        f: s
        for f, s in folder_sizes(root).items()
        if visible_to_callers(f + "/x.md", config) and f != SCRATCH
    }
    if not folders:
        return [("list_500", "vault_list / (root)", "", notes, max(500, notes))]
    largest = max(folders, key=lambda f: (folders[f][0], f))
    # The target is for a 500-note folder: the smallest folder with at least 500 notes
    # (listing cost grows with the entries), else the largest.
    at_least = [f for f in folders if folders[f][0] >= 500]
    near = min(at_least, key=lambda f: (folders[f][0], f)) if at_least else largest
    notes_in, entries = folders[near]
    lists = [
        ("list_500", f"vault_list {near}/ ({notes_in} notes)", near, entries, max(500, entries))
    ]
    if largest != near:
        n_large, e_large = folders[largest]
        label = f"vault_list {largest}/ ({n_large} notes), limit 500"
        lists.append(("list_largest", label, largest, e_large, 500))
    return lists
