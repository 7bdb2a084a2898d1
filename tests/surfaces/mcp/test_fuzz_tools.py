"""Generated arguments to every MCP tool, in memory (the stdio server's code path) and over
Streamable HTTP (a real uvicorn): every call is answered within 5 s with a result or the
SPEC error object (issue 18, "a fuzz test in the test command").

The default run is small; ``make fuzz`` runs the long version (``-m slow``, 2,000+ calls).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.errors import ERROR_CODES
from hoard.core.policy import Caller
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP

ANSWER_S = 5.0
AGENT = Caller("fuzzer", frozenset({"read", "write", "confirm"}), "direct")
PATHS = ["tech/a.md", "tech/", "", "../x.md", "/etc/passwd", "finance/b.md", "a" * 300 + ".md"]

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**30, max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=10),
    st.sampled_from(PATHS),
)
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=4),
    st.dictionaries(st.text(max_size=5), _scalars, max_size=3),
)


def _note(title: str) -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [alpha, beta]\n"
        f"updated: 2026-03-01\n---\nbody of {title} [[b]]\n"
    )


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HoardMCP]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "vault/tech").mkdir(parents=True)
    (root / "vault/finance").mkdir()
    (root / "vault/hoard.toml").write_text('protected = ["finance/**"]\n', encoding="utf-8")
    (root / "vault/tech/a.md").write_text(_note("A"), encoding="utf-8")
    (root / "vault/finance/b.md").write_text(_note("B"), encoding="utf-8")
    with Hoard(root / "vault", root / "state") as hoard:
        server = HoardMCP(hoard, AGENT)
        yield server
        server.close()


@pytest.fixture(scope="module")
def tools(mcp: HoardMCP) -> list[dict[str, Any]]:
    async def listed() -> list[dict[str, Any]]:
        async with Client(mcp.server) as c:
            return [t.model_dump() for t in (await c.list_tools()).tools]

    return anyio.run(listed)


@pytest.fixture(scope="module")
def http_url(mcp: HoardMCP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    tokens = TokenStore(tmp_path_factory.mktemp("tokens") / "tokens.json")
    _, token = tokens.add("fuzzer", "read,write,confirm", "direct")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = build_app(mcp, tokens, "127.0.0.1", port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp", token
    server.should_exit = True
    thread.join(timeout=15)
    sock.close()


def calls(tools: list[dict[str, Any]]) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """A tool and generated arguments: some of its own parameters (generated values) and
    now and then a name it does not know."""

    def for_tool(tool: dict[str, Any]) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        names = [*tool["input_schema"].get("properties", {}), "bogus"]
        args = st.dictionaries(st.sampled_from(names), _values, max_size=len(names))
        return st.tuples(st.just(tool["name"]), args)

    return st.one_of(*[for_tool(t) for t in tools], st.tuples(st.just("no_such_tool"), st.just({})))


def assert_answered(result: CallToolResult) -> None:
    if result.is_error:
        obj = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert obj["error"] in ERROR_CODES, obj
        assert isinstance(obj["message"], str)
    else:
        assert isinstance(result.structured_content, dict)


async def _in_memory(mcp: HoardMCP, calls_: list[tuple[str, dict[str, Any]]]) -> None:
    async with Client(mcp.server) as c:
        for name, args in calls_:
            with anyio.fail_after(ANSWER_S):
                assert_answered(await c.call_tool(name, args))


async def _over_http(url: str, token: str, calls_: list[tuple[str, dict[str, Any]]]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30.0) as hc,
        Client(streamable_http_client(url, http_client=hc)) as c,
    ):
        for name, args in calls_:
            with anyio.fail_after(ANSWER_S):
                assert_answered(await c.call_tool(name, args))


def _run(mcp: HoardMCP, http: tuple[str, str], tools: list[dict[str, Any]], n: int) -> None:
    """Hypothesis generates ``n`` batches of calls; one client per transport then sends them
    all (a connection per example would cost more than the calls)."""
    generated: list[tuple[str, dict[str, Any]]] = []

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(batch=st.lists(calls(tools), min_size=1, max_size=5))
    def gather(batch: list[tuple[str, dict[str, Any]]]) -> None:
        generated.extend(batch)

    gather()
    anyio.run(_in_memory, mcp, generated)
    anyio.run(_over_http, http[0], http[1], [(t, json_safe(a)) for t, a in generated])


def json_safe(value: Any) -> Any:
    """What JSON can carry to an HTTP server (lone surrogates and NaN travel only in memory;
    the raw stdio test covers them on the wire)."""
    return json.loads(json.dumps(value, allow_nan=False)) if _ok(value) else {}


def _ok(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return False
    return True


def test_generated_calls_to_every_tool_are_answered_on_both_transports(
    mcp: HoardMCP, http_url: tuple[str, str], tools: list[dict[str, Any]]
) -> None:
    _run(mcp, http_url, tools, 15)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("HOARD_FUZZ"), reason="the long fuzz run: make fuzz")
def test_two_thousand_generated_calls_are_answered_on_both_transports(
    mcp: HoardMCP, http_url: tuple[str, str], tools: list[dict[str, Any]]
) -> None:
    _run(mcp, http_url, tools, 700)  # about three calls an example, each on both transports
