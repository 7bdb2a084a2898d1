"""Strict mode: any doubt about the tokens file means 503 for everything (``/healthz`` too),
and fixing the file restores service without a restart."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.server import HoardMCP


@dataclass
class Strict:
    url: str
    token: str
    tokens_file: Path
    good: bytes


@pytest.fixture(scope="module")
def strict(
    example_hoard: Hoard,
    tmp_path_factory: pytest.TempPathFactory,
    http_server: Callable[..., Any],
) -> Strict:
    tokens_file = tmp_path_factory.mktemp("strict-tokens") / "tokens.json"
    _, token = TokenStore(tokens_file).add("strict-bot", "read", "propose")
    live = http_server(HoardMCP(example_hoard, LOCAL_DEFAULT), TokenStore(tokens_file, strict=True))
    return Strict(live.url, token, tokens_file, tokens_file.read_bytes())


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _restore(s: Strict) -> None:
    """Put the good file back as a fresh inode with mode 0600."""
    _remove(s.tokens_file)
    tmp = s.tokens_file.with_name(".restore.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(s.good)
    os.chmod(tmp, 0o600)
    os.replace(tmp, s.tokens_file)


@pytest.fixture
def served(strict: Strict) -> Iterator[Strict]:
    _restore(strict)
    yield strict
    _restore(strict)


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30.0) as client:
        yield client


def _statuses(
    http: httpx2.Client, s: Strict, mcp_headers, initialize_request, assert_no_internals
) -> tuple[int, int]:
    health = http.get(f"{s.url}/healthz")
    call = http.post(
        f"{s.url}/mcp",
        headers=mcp_headers(s.token),
        content=json.dumps(initialize_request).encode(),
    )
    for r in (health, call):
        assert_no_internals(r.text)
    if call.status_code == 503:
        assert str(s.tokens_file) not in call.text
    return health.status_code, call.status_code


def _missing(s: Strict) -> None:
    s.tokens_file.unlink()


def _directory(s: Strict) -> None:
    s.tokens_file.unlink()
    s.tokens_file.mkdir()


def _fifo(s: Strict) -> None:
    s.tokens_file.unlink()
    os.mkfifo(s.tokens_file, 0o600)


def _malformed_json(s: Strict) -> None:
    s.tokens_file.write_bytes(s.good[: len(s.good) // 2])


def _wrong_shape(s: Strict) -> None:
    s.tokens_file.write_text('{"callers": {"strict-bot": "x"}}')


def _bad_digest(s: Strict) -> None:
    data = json.loads(s.good)
    data["callers"][0]["sha256"] = "not-a-digest"
    s.tokens_file.write_text(json.dumps(data))


def _symlink(s: Strict) -> None:
    real = s.tokens_file.with_name("real-tokens.json")
    real.write_bytes(s.good)
    real.chmod(0o600)
    s.tokens_file.unlink()
    s.tokens_file.symlink_to(real)


def _world_writable(s: Strict) -> None:
    s.tokens_file.chmod(0o666)


def _group_writable(s: Strict) -> None:
    s.tokens_file.chmod(0o620)


BREAKAGES = {
    "missing": _missing,
    "directory": _directory,
    "fifo": _fifo,
    "malformed-json": _malformed_json,
    "wrong-shape": _wrong_shape,
    "bad-digest": _bad_digest,
    "symlink": _symlink,
    "world-writable": _world_writable,
    "group-writable": _group_writable,
}


def test_a_good_tokens_file_serves_normally(
    http: httpx2.Client, served: Strict, mcp_headers, initialize_request, assert_no_internals
) -> None:
    assert _statuses(http, served, mcp_headers, initialize_request, assert_no_internals) == (
        200,
        200,
    )
    r = http.post(
        f"{served.url}/mcp",
        headers=mcp_headers("hoard_wrong"),
        content=json.dumps(initialize_request).encode(),
    )
    assert r.status_code == 401


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_an_untrustworthy_tokens_file_is_503_for_everything_until_fixed(
    http: httpx2.Client,
    served: Strict,
    mcp_headers,
    initialize_request,
    assert_no_internals,
    breakage: str,
) -> None:
    BREAKAGES[breakage](served)
    assert _statuses(http, served, mcp_headers, initialize_request, assert_no_internals) == (
        503,
        503,
    )
    # Also without a token, and with a foreign Host: strict mode answers first.
    assert http.post(f"{served.url}/mcp", content=b"{}").status_code == 503
    assert http.get(f"{served.url}/healthz", headers={"Host": "evil.example"}).status_code == 503
    _restore(served)
    assert _statuses(http, served, mcp_headers, initialize_request, assert_no_internals) == (
        200,
        200,
    )


def test_an_unreadable_tokens_file_is_503(
    http: httpx2.Client, served: Strict, mcp_headers, initialize_request, assert_no_internals
) -> None:
    if os.geteuid() == 0:
        pytest.skip(
            "running as root: chmod 000 does not stop root from reading the file; the "
            "directory and FIFO variants above cover files that cannot be read as tokens"
        )
    served.tokens_file.chmod(0o000)
    assert _statuses(http, served, mcp_headers, initialize_request, assert_no_internals) == (
        503,
        503,
    )
    served.tokens_file.chmod(0o600)
    assert _statuses(http, served, mcp_headers, initialize_request, assert_no_internals) == (
        200,
        200,
    )
