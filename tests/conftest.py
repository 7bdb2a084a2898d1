"""Fixtures and settings shared by every test folder. Folder conftests hold only what is local
to their folder; plain helpers live in ``tests/helpers.py``.

Hypothesis runs without a per-example deadline: tests never assert wall-clock times, and on a
shared 2-core machine a slow example is noise, not a bug.

- ``vault`` (an empty folder), ``state_dir`` (its state folder, a sibling, never inside it);
- ``note_text(title, body, tags=..., extra=...)``: a note that passes the default contract;
- ``write_note("tech/x.md", "Title", "body", tags=..., root=other_vault)`` (``raw=...``: the
  exact text or bytes); ``put("tech/a.md", text_or_bytes)``: any file, as given;
- ``edit_note("tech/a.md", "text")``: an editor's save (body-only text becomes a note), always
  with a new ``mtime_ns`` so tests never depend on the clock's resolution;
- ``snap(rel)``: ``(bytes, mtime_ns)`` of a vault file or ``None``; ``rev(rel)``: its SHA-256;
- ``open_hoard(root=None, state=None, watch=False)`` / ``hoard``: a :class:`Hoard` over
  ``vault`` and ``state_dir``, closed at teardown;
- ``example_vault``: a private copy of the bundled example vault (tests may change it);
  ``shared_example_vault`` / ``example_hoard``: one read-only copy and Hoard per session;
- ``wait_until(pred, timeout)`` / ``await_until``: poll with a deadline;
- callers: ``agent`` (read, propose), ``reader`` (read), ``writer`` (read, write), ``owner``;
- ``hoard_bin``: the installed console script; ``anyio_backend``: asyncio;
- PostgreSQL: ``pg_url`` (an empty database), ``pg_store`` (one with the schema), ``shared``
  (``HOARD_STORE_URL`` set to a ``pg_store``), ``replica(name)`` (a replica of ``vault`` with
  its own state folder), ``caught_up(h)`` (wait until ``h`` applied the others' changes).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from hoard.adapters.store import coordination
from hoard.adapters.store.components import migrate_all
from hoard.adapters.store.pg import PostgresServer
from hoard.app.hoard import Hoard
from hoard.benchmark import pgcluster
from hoard.core.config import Config
from hoard.core.policy import OWNER, Caller
from tests import helpers

settings.register_profile("hoard", deadline=None)
settings.load_profile("hoard")

_MTIME_BASE = 1_700_000_000 * 10**9
_tick = itertools.count(1)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


# -- vaults and notes --------------------------------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    """Where index.db and ledger.db live: a sibling of the vault, never inside it."""
    return tmp_path / "state"


@pytest.fixture(scope="session")
def note_text() -> Callable[..., str]:
    return helpers.note_text


@pytest.fixture
def write_note(vault: Path) -> Callable[..., Path]:
    def write(rel: str, title: str = "", body: str = "", *, root: Path | None = None, **kw: Any):
        return helpers.write_note(root or vault, rel, title, body, **kw)

    return write


@pytest.fixture
def put(vault: Path) -> Callable[[str, str | bytes], Path]:
    return lambda rel, data: helpers.write_file(vault, rel, data)


@pytest.fixture
def edit_note(vault: Path) -> Callable[[str, str], Path]:
    def edit(rel: str, text: str) -> Path:
        path = helpers.write_file(
            vault, rel, text if text.startswith("---") else helpers.note_text(rel, text)
        )
        ns = _MTIME_BASE + next(_tick) * 1_000_000_007
        os.utime(path, ns=(ns, ns))
        return path

    return edit


@pytest.fixture
def snap(vault: Path) -> Callable[[str], tuple[bytes, int] | None]:
    def take(rel: str) -> tuple[bytes, int] | None:
        path = vault / rel
        if not path.exists():
            return None
        return path.read_bytes(), path.stat().st_mtime_ns

    return take


@pytest.fixture
def rev(vault: Path) -> Callable[[str], str]:
    return lambda rel: hashlib.sha256((vault / rel).read_bytes()).hexdigest()


@pytest.fixture
def open_hoard(vault: Path, state_dir: Path) -> Iterator[Callable[..., Hoard]]:
    """Open a :class:`Hoard` (defaults: the ``vault`` and ``state_dir`` fixtures; ``config``
    instead of the vault's ``hoard.toml``); every one opened is closed at teardown."""
    opened: list[Hoard] = []

    def open_(
        root: Path | None = None,
        state: Path | None = None,
        *,
        watch: bool = False,
        config: Config | None = None,
    ) -> Hoard:
        h = Hoard(root or vault, state or state_dir, config, watch=watch)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


@pytest.fixture
def hoard(open_hoard: Callable[..., Hoard]) -> Hoard:
    return open_hoard()


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of the bundled example vault (tests may change it)."""
    return helpers.copy_example_vault(tmp_path / "example")


@pytest.fixture(scope="session")
def shared_example_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the example vault for the session: only for tests that never change it."""
    return helpers.copy_example_vault(tmp_path_factory.mktemp("example") / "vault")


@pytest.fixture(scope="session")
def example_hoard(
    shared_example_vault: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Hoard]:
    with Hoard(shared_example_vault, tmp_path_factory.mktemp("example-state")) as h:
        yield h


# -- polling -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def wait_until() -> Callable[..., Any]:
    return helpers.wait_until


@pytest.fixture(scope="session")
def await_until() -> Callable[..., Any]:
    return helpers.await_until


# -- callers and programs ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def agent() -> Caller:
    """A non-owner caller with the read scope only (writes would become proposals)."""
    return Caller("agent", frozenset({"read"}), "propose")


@pytest.fixture(scope="session")
def reader() -> Caller:
    return Caller("reader", frozenset({"read"}), "direct")


@pytest.fixture(scope="session")
def writer() -> Caller:
    return Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture(scope="session")
def owner() -> Caller:
    return OWNER


@pytest.fixture(scope="session")
def hoard_bin() -> Path:
    """The installed console script, next to this interpreter."""
    path = Path(sys.executable).parent / "hoard"
    assert path.exists(), f"the console script is not installed at {path}"
    return path


# -- PostgreSQL (the shared store of replicas) ---------------------------------------------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pgcluster.Cluster]:
    """A throwaway PostgreSQL cluster for the session (see :mod:`hoard.benchmark.pgcluster`)."""
    bindir = pgcluster.server_bindir()
    if bindir is None:
        pytest.skip("Debian's postgresql is not installed (apt-get install postgresql)")
    cluster = pgcluster.Cluster(bindir)
    yield cluster
    cluster.close()


@pytest.fixture
def pg_url(pg_cluster: pgcluster.Cluster) -> str:
    """The URL of a new empty database of the session's cluster."""
    return pg_cluster.new_database()


@pytest.fixture(scope="session")
def pg_schema_template(pg_cluster: pgcluster.Cluster) -> str:
    """The name of a database with every component's schema in place (what ``hoard store
    init`` makes), made once; tests get copies of it."""
    url = pg_cluster.new_database()
    server = PostgresServer(url, "setup")
    try:
        migrate_all(server)
    finally:
        server.close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def pg_store(pg_cluster: pgcluster.Cluster, pg_schema_template: str) -> str:
    """The URL of a new database of the session's cluster with every component's schema in
    place (a copy of :func:`pg_schema_template`)."""
    return pg_cluster.new_database(pg_schema_template)


@pytest.fixture
def shared(pg_store: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``HOARD_STORE_URL`` set to a new PostgreSQL store: the replicas opened share it."""
    monkeypatch.setenv("HOARD_STORE_URL", pg_store)
    return pg_store


@pytest.fixture
def replica(vault: Path, tmp_path: Path) -> Iterator[Callable[[str], Hoard]]:
    """Open replica ``name`` of ``vault`` (its own state folder), closed at teardown."""
    opened: list[Hoard] = []

    def open_(name: str) -> Hoard:
        h = Hoard(vault, tmp_path / f"state-{name}", replica=name)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


def _caught_up(h: Hoard) -> None:
    link = h.replica_link
    assert link is not None
    newest = coordination.newest_change(link.server)
    helpers.wait_until(lambda: link.follower is not None and link.follower.applied >= newest)


@pytest.fixture(scope="session")
def caught_up() -> Callable[[Hoard], None]:
    """``caught_up(h)``: wait until replica ``h`` has applied every change the other replicas
    made so far: its own look at the folder then happened before the test changes a file
    behind its back (else, applying the change later, it reads the change as a save)."""
    return _caught_up


@pytest.fixture(autouse=True)
def store_under_test(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HOARD_TEST_STORE=postgres`` runs every test with its shared state in PostgreSQL
    (``HOARD_STORE_URL`` set to a new database of its own): the whole suite as the store's
    contract test. The default, files of the state folder, sets nothing."""
    if os.environ.get("HOARD_TEST_STORE", "sqlite") != "postgres":
        return
    monkeypatch.setenv("HOARD_STORE_URL", request.getfixturevalue("pg_store"))
