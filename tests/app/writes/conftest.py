"""Fixtures local to the governed-writes suite (the shared ones, ``vault``, ``state_dir``,
``note_text``, ``put``, ``snap``, ``open_hoard``, ``hoard``, ``wait_until``, live in
``tests/conftest.py``):

- ``run_op(op, failpoint=None, **kwargs)``: run ``hoard.writes.<op>(**kwargs)`` in a fresh
  Python process (optionally with ``HOARD_FAILPOINT``), return ``(exit code, result, stderr)``;
- ``start_op(op, failpoint, folder, **kwargs)``: the same, started in the background with
  ``HOARD_FAILPOINT_DIR=folder`` (for ``name:pause`` failpoints); returns the ``Popen``;
- ``stage_files()``: every ``.hoard-stage-*`` file left anywhere in the vault;
- ``verify_ledger(hoard, path)``: every preserved revision of ``path`` hashes to its sha256;
- ``refuse(hoard, code, rel, fn, *args, **kwargs)``: ``fn`` is refused with ``code``, the file
  at ``rel`` is untouched (bytes and mtime_ns) and the refusal is a ``refused`` ledger event.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER
from tests.helpers import sha

# The child process for run_op: opens the vault, performs one WritePath operation as the owner,
# prints its result as JSON on stdout (or the SPEC error object, exit 3).
CHILD = """
import json, sys
from pathlib import Path
from hoard.core.errors import HoardError
from hoard.core.models import to_json
from hoard.app.hoard import Hoard

vault, state, op, kwargs = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
with Hoard(Path(vault), Path(state)) as hoard:
    try:
        flow = hoard.writes
        for name in op.split("."):
            flow = getattr(flow, name)
        result = flow(**kwargs, caller=hoard.owner)
    except HoardError as exc:
        print(json.dumps(exc.to_object()))
        sys.exit(3)
    print(json.dumps(to_json(result)))
"""


@pytest.fixture
def stage_files(vault: Path) -> Callable[[], list[Path]]:
    def find() -> list[Path]:
        return sorted(vault.rglob(".hoard-stage-*"))

    return find


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


@pytest.fixture
def start_op(vault: Path, state_dir: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``start_op("write", "write.stage_fsync:pause", tmp_path, path=..., content=...)``."""
    started: list[subprocess.Popen[str]] = []

    def start(op: str, failpoint: str, folder: Path, **kwargs: Any) -> subprocess.Popen[str]:
        env = {**os.environ, "HOARD_FAILPOINT": failpoint, "HOARD_FAILPOINT_DIR": str(folder)}
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(vault), str(state_dir), op, json.dumps(kwargs)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def _verify_ledger(hoard: Hoard, path: str) -> int:
    """Every preserved revision of ``path``: its exact content hashes to its sha256 and has
    its recorded size. Returns how many there are."""
    history = hoard.writes.retirement.history(path, caller=OWNER)
    for info in history.revisions:
        rev = hoard.writes.retirement.history(revision_id=info.revision_id, caller=OWNER)
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
    ``recorded=False`` where no path can carry one). The call is made as the owner unless
    ``caller=`` is given."""

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
        events_before = (
            len(hoard.writes.retirement.history(rel, caller=OWNER).events) if recorded else 0
        )
        with pytest.raises(HoardError) as info:
            fn(*args, **{"caller": OWNER, **kwargs})
        exc = info.value
        assert exc.code == code, exc.to_object()
        assert snap(rel) == before, f"{rel} changed although the call was refused"
        if recorded:
            events = hoard.writes.retirement.history(rel, caller=OWNER).events
            assert len(events) == events_before + 1, "the refusal was not recorded"
            # an I/O failure after the intent was recorded is "failed"; a gate's is "refused"
            assert events[-1].decision == ("failed" if code == "io_error" else "refused")
            assert events[-1].after is None
            assert (events[-1].reason or "").startswith(f"{code}:")
        return exc

    return check
