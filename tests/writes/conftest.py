"""Fixtures for the governed-writes suite: small real vaults in tmp_path, real ledger.db and
index.db, real processes for crash and concurrency tests. No mocks of hoard's own code.

Helpers are handed out as fixtures so test modules never import this file:

- ``note_text(title, body, tags=..., updated=..., extra=...)``: a note that passes the default
  frontmatter contract;
- ``put("tech/a.md", text_or_bytes)``: write a file into the vault the way an editor would;
- ``snap(path)``: ``(bytes, mtime_ns)`` of a file, ``None`` when there is none, to prove that
  a refused call changed nothing;
- ``open_hoard()``: a :class:`Hoard` over the ``vault`` and ``state_dir`` fixtures, closed at
  teardown; ``hoard`` is one opened for the test;
- ``run_op(op, failpoint=None, **kwargs)``: run ``hoard.writes.<op>(**kwargs)`` in a fresh
  Python process (optionally with ``HOARD_FAILPOINT``), return ``(exit code, result, stderr)``;
- ``stage_files()``: every ``.hoard-stage-*`` file left anywhere in the vault;
- ``wait_until(pred, timeout)``: poll with a deadline (never a bare sleep);
- ``verify_ledger(hoard, path)``: every preserved revision of ``path`` hashes to its sha256;
- ``refuse(hoard, code, rel, fn, *args, **kwargs)``: ``fn`` is refused with ``code``, the file
  at ``rel`` is untouched (bytes and mtime_ns) and the refusal is a ``refused`` ledger event.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError

# The child process for run_op: opens the vault, performs one WritePath operation, prints its
# result as JSON on stdout (or the SPEC error object, exit 3).
CHILD = """
import json, sys
from pathlib import Path
from hoard.core.errors import HoardError
from hoard.core.models import to_json
from hoard.core.errors import HoardError
from hoard.app.hoard import Hoard

vault, state, op, kwargs = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
with Hoard(Path(vault), Path(state)) as hoard:
    try:
        result = getattr(hoard.writes, op)(**kwargs)
    except HoardError as exc:
        print(json.dumps(exc.to_object()))
        sys.exit(3)
    print(json.dumps(to_json(result)))
"""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _note_text(
    title: str,
    body: str = "",
    *,
    tags: Iterable[str] = ("alpha", "beta"),
    type: str = "note",
    status: str = "active",
    updated: str = "2026-03-01",
    extra: str = "",
) -> str:
    """A note that passes the default frontmatter contract (``extra``: raw YAML lines)."""
    head = (
        f"---\ntitle: {title}\ntype: {type}\nstatus: {status}\n"
        f"tags: [{', '.join(tags)}]\nupdated: {updated}\n{extra}---\n"
    )
    body = body.rstrip("\n")
    return head + (body + "\n" if body else "")


def _wait_until(pred: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(interval)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture(scope="session")
def note_text() -> Callable[..., str]:
    return _note_text


@pytest.fixture(scope="session")
def wait_until() -> Callable[..., Any]:
    return _wait_until


@pytest.fixture
def put(vault: Path) -> Callable[[str, str | bytes], Path]:
    def write(rel: str, data: str | bytes) -> Path:
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return path

    return write


@pytest.fixture
def snap(vault: Path) -> Callable[[str], tuple[bytes, int] | None]:
    def take(rel: str) -> tuple[bytes, int] | None:
        path = vault / rel
        if not path.exists():
            return None
        return path.read_bytes(), path.stat().st_mtime_ns

    return take


@pytest.fixture
def stage_files(vault: Path) -> Callable[[], list[Path]]:
    def find() -> list[Path]:
        return sorted(vault.rglob(".hoard-stage-*"))

    return find


@pytest.fixture
def open_hoard(vault: Path, state_dir: Path) -> Iterator[Callable[..., Hoard]]:
    opened: list[Hoard] = []

    def open_(root: Path | None = None, state: Path | None = None) -> Hoard:
        h = Hoard(root or vault, state or state_dir)
        opened.append(h)
        return h

    yield open_
    for h in opened:
        h.close()


@pytest.fixture
def hoard(open_hoard: Callable[..., Hoard]) -> Hoard:
    return open_hoard()


@pytest.fixture
def run_op(vault: Path, state_dir: Path) -> Callable[..., tuple[int, Any, str]]:
    """``run_op("write", failpoint="write.renamed", path=..., content=...)``."""

    def run(op: str, failpoint: str | None = None, **kwargs: Any) -> tuple[int, Any, str]:
        env = {k: v for k, v in os.environ.items() if k != "HOARD_FAILPOINT"}
        if failpoint is not None:
            env["HOARD_FAILPOINT"] = failpoint
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(vault), str(state_dir), op, json.dumps(kwargs)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        out = proc.stdout.strip()
        return proc.returncode, (json.loads(out) if out else None), proc.stderr

    return run


def _verify_ledger(hoard: Hoard, path: str) -> int:
    """Every preserved revision of ``path``: its exact content hashes to its sha256 and has
    its recorded size. Returns how many there are."""
    history = hoard.writes.history(path)
    for info in history.revisions:
        rev = hoard.writes.history(revision_id=info.revision_id)
        raw = (
            rev.content.encode("utf-8")
            if rev.encoding == "utf-8"
            else base64.b64decode(rev.content)
        )
        assert sha(raw) == info.sha256 == rev.sha256, info.revision_id
        assert len(raw) == info.size == rev.size
    return len(history.revisions)


@pytest.fixture(scope="session")
def verify_ledger() -> Callable[[Hoard, str], int]:
    return _verify_ledger


@pytest.fixture
def refuse(
    snap: Callable[[str], tuple[bytes, int] | None],
) -> Callable[..., HoardError]:
    """``refuse(hoard, "conflict", "tech/a.md", hoard.writes.write, *args, **kwargs)``: the
    call raises the SPEC error ``code``, the file at ``rel`` is byte- and mtime-identical
    afterwards (or still absent), and the ledger recorded the refusal as a ``refused`` event
    of ``rel`` (``failed`` for an I/O error once the change had begun; pass
    ``recorded=False`` where no path can carry one)."""

    def check(
        hoard: Hoard,
        code: str,
        rel: str,
        fn: Callable[..., Any],
        *args: Any,
        recorded: bool = True,
        **kwargs: Any,
    ) -> HoardError:
        before = snap(rel)
        events_before = len(hoard.writes.history(rel).events) if recorded else 0
        with pytest.raises(HoardError) as info:
            fn(*args, **kwargs)
        exc = info.value
        assert exc.code == code, exc.to_object()
        assert snap(rel) == before, f"{rel} changed although the call was refused"
        if recorded:
            events = hoard.writes.history(rel).events
            assert len(events) == events_before + 1, "the refusal was not recorded"
            # an I/O failure after the intent was recorded is "failed"; a gate's is "refused"
            assert events[-1].decision == ("failed" if code == "io_error" else "refused")
            assert events[-1].after is None
            assert (events[-1].reason or "").startswith(f"{code}:")
        return exc

    return check
