"""The per-path locks on both engines: flock files of a state folder, and advisory locks of a
shared PostgreSQL store. Two lock sets exclude each other like two replicas do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.fs import atomic
from hoard.adapters.store.locks import PathLocks
from hoard.adapters.store.shared import SharedStore, replica_tag
from hoard.core.errors import Busy


@pytest.fixture(params=["sqlite", "postgres"])
def stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[str], SharedStore]]:
    """Open a store per replica name (one state folder on the files' engine, as one
    process's threads and commands share it)."""
    url = request.getfixturevalue("pg_store") if request.param == "postgres" else ""
    opened: list[SharedStore] = []

    def open_(replica: str) -> SharedStore:
        store = SharedStore(tmp_path / "state", url, replica, pool_size=4)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


def held_elsewhere(locks: PathLocks, rel: str, until: threading.Event) -> threading.Thread:
    """Hold ``rel`` in another thread until ``until`` is set."""
    got = threading.Event()

    def hold() -> None:
        with locks.lock(rel):
            got.set()
            until.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    assert got.wait(10)
    return t


def test_a_lock_held_by_another_replica_makes_a_writer_busy_after_the_timeout(
    stores, monkeypatch
) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT_S", 0.3)
    a, b = stores("a").path_locks(), stores("b").path_locks()
    done = threading.Event()
    holder = held_elsewhere(a, "team/log.md", done)
    started = time.monotonic()
    with pytest.raises(Busy) as info, b.lock("team/log.md"):
        pass
    waited = time.monotonic() - started
    done.set()
    holder.join()

    assert 0.25 <= waited < 5
    assert info.value.message == "'team/log.md' is being written by someone else; try again"
    assert info.value.to_object()["path"] == "team/log.md"
    with b.lock("team/log.md"):  # released by its holder: free again
        pass


def test_a_lock_on_another_path_is_not_held_up(stores) -> None:
    a, b = stores("a").path_locks(), stores("b").path_locks()
    done = threading.Event()
    holder = held_elsewhere(a, "team/log.md", done)
    with b.lock("team/other.md", timeout=1.0):
        pass
    done.set()
    holder.join()


def test_a_thread_takes_a_lock_it_holds_again_without_waiting(stores) -> None:
    locks = stores("a").path_locks()
    with (
        locks.lock("team/log.md"),
        locks.locks(["team/log.md", "team/_INDEX.md"]),
        locks.lock("team/log.md", timeout=0.1),
    ):
        pass
    other = stores("b").path_locks()
    with other.lock("team/log.md", timeout=1.0), other.lock("team/_INDEX.md", timeout=1.0):
        pass  # every one was released with the outermost


def test_writers_taking_the_same_locks_in_opposite_orders_never_wait_on_each_other(
    stores,
) -> None:
    a, b = stores("a").path_locks(), stores("b").path_locks()
    errors: list[BaseException] = []

    def run(locks: PathLocks, rels: list[str]) -> None:
        try:
            for _ in range(30):
                with locks.locks(rels):
                    time.sleep(0.001)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(a, ["x.md", "y.md", "z.md"])),
        threading.Thread(target=run, args=(b, ["z.md", "y.md", "x.md"])),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_the_git_lock_excludes_across_replicas(stores, monkeypatch) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT_S", 0.2)
    a, b = stores("a").path_locks(), stores("b").path_locks()
    with a.lock("\x00git", 120.0), pytest.raises(Busy), b.lock("\x00git", 0.2):
        pass


HOLDER = """
import sys, time
from pathlib import Path
from hoard.adapters.store.shared import SharedStore
store = SharedStore(Path(sys.argv[1]), sys.argv[2], "doomed")
with store.path_locks().lock("team/log.md"):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_killed_holder_leaves_no_lock_held(stores, tmp_path: Path) -> None:
    store = stores("survivor")
    url = "" if store.server is None else store.server.url
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "state"), url],
        stdout=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "HOARD_STORE_URL"},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        locks = store.path_locks()
        with pytest.raises(Busy), locks.lock("team/log.md", timeout=0.2):
            pass
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        started = time.monotonic()
        with locks.lock("team/log.md", timeout=5.0):
            freed_after = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    assert freed_after < 2.0


@pytest.mark.parametrize(
    ("name", "tag"),
    [
        ("web-1", "web-1"),
        ("host.example-42", "host_example-42_"),
        ("../../etc", "______etc_"),
        ("", "__"),
    ],
)
def test_a_replica_name_becomes_a_file_name_safe_tag_without_dots_or_slashes(
    name: str, tag: str
) -> None:
    got = replica_tag(name)
    assert got.startswith(tag)
    assert "." not in got and "/" not in got and len(got) <= 49
