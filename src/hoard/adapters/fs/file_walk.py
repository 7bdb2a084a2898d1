"""The stat walk of the vault's other files (attachments): like the note walk (no dot
entries, no symlinks, nothing ignored, NFC paths), for the files ``accept`` takes."""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Callable

from hoard.adapters.fs.vault import Vault


def scan_files(vault: Vault, accept: Callable[[str], bool]) -> dict[str, tuple[int, int]]:
    """``{path: (mtime_ns, size)}`` of every regular file whose path ``accept`` takes."""
    out: dict[str, tuple[int, int]] = {}
    refuse_links = vault.config.limits.refuse_hard_links
    stack: list[tuple[str, str]] = [(str(vault.root), "")]
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
                        if not vault.is_ignored(prefix + name + "/"):
                            stack.append((entry.path, prefix + name + "/"))
                        continue
                    rel = unicodedata.normalize("NFC", prefix + name)
                    if not accept(rel):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode) or (refuse_links and st.st_nlink > 1):
                    continue
                if not vault.is_ignored(rel):
                    out[rel] = (st.st_mtime_ns, st.st_size)
    return out
