"""A stand-in for a person's editor, run as its own process by the race tests: until the
deadline it saves the note every 10-60 ms, each save its file as read a moment before plus one
new line, by rename (``rename``: write a temp file, ``os.replace``) or in place (``inplace``:
open with truncation, write, flush). Saves of the editors are serialised by a ``flock`` on a
file outside the vault (two editor windows of one person do not clobber each other). Each
saved line is appended to the log file after the save returned; an in-place save whose file
was no longer at the path once its bytes were in it (hoard had swapped it out) is logged with
``\torphaned``.

``python editor_process.py VAULT REL MODE SECONDS LOG LOCK SEED``
"""

from __future__ import annotations

import fcntl
import os
import random
import sys
import time
from pathlib import Path


def main() -> None:
    vault, rel, mode, seconds, log, lock, seed = sys.argv[1:8]
    path = Path(vault) / rel
    rng = random.Random(int(seed))
    deadline = time.monotonic() + float(seconds)
    n = 0
    with open(log, "a") as out, open(lock, "a") as lock_file:
        while time.monotonic() < deadline:
            time.sleep(rng.uniform(0.01, 0.06))
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                line = f"editor-{mode}-{n}\n"
                data = path.read_bytes() + line.encode()
                if mode == "rename":
                    tmp = path.with_name(f".{path.name}.editor-{os.getpid()}")
                    tmp.write_bytes(data)
                    os.replace(tmp, path)
                    orphaned = False
                else:
                    with open(path, "wb") as f:
                        f.write(data)
                        f.flush()  # a short save sits in the buffer until here
                        orphaned = not _still_at(f.fileno(), path)
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)
            out.write(line.replace("\n", "\torphaned\n") if orphaned else line)
            out.flush()
            n += 1


def _still_at(fd: int, path: Path) -> bool:
    """Is the file open as ``fd`` the one at ``path``?"""
    mine = os.fstat(fd)
    try:
        there = os.stat(path)
    except FileNotFoundError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


if __name__ == "__main__":
    main()
