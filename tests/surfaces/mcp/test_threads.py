"""Which tool calls run on the event loop and which in a worker thread: a read or a policy
answer is small and never waits, so it skips the hop to a thread; a search, a listing or a
write may take long or wait on a lock, so it never holds up the loop."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.mcp.server import HoardMCP

pytestmark = pytest.mark.anyio


def _spy(monkeypatch: pytest.MonkeyPatch, hoard: Hoard, method: str) -> list[int]:
    """Record the thread each call of ``hoard.<use-case>.<name>`` runs on, and call through."""
    threads: list[int] = []
    use_case, name = method.split(".")
    owner = getattr(hoard, use_case)
    real: Callable[..., Any] = getattr(owner, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return threads


@pytest.mark.parametrize(
    ("tool", "method", "args", "on_loop"),
    [
        ("vault_read", "reading.read", {"path": "tech/hue-bridge.md"}, True),
        ("vault_policy", "maintenance.policy", {}, True),
        ("vault_search", "searching.search", {"query": "hue bridge"}, False),
        ("vault_list", "reading.list", {"path": "tech"}, False),
        ("vault_links", "reading.links", {"path": "tech/hue-bridge.md"}, False),
    ],
)
async def test_cheap_reads_run_on_the_event_loop_and_the_rest_in_a_worker_thread(
    example_hoard: Hoard,
    monkeypatch: pytest.MonkeyPatch,
    ok,
    tool: str,
    method: str,
    args: dict[str, Any],
    on_loop: bool,
) -> None:
    threads = _spy(monkeypatch, example_hoard, method)
    mcp = HoardMCP(example_hoard, LOCAL_DEFAULT)
    async with Client(mcp.server) as c:
        ok(await c.call_tool(tool, args))
    assert len(threads) == 1
    assert (threads[0] == threading.get_ident()) is on_loop


async def test_a_refused_read_on_the_event_loop_is_the_spec_error_object(
    example_hoard: Hoard,
) -> None:
    mcp = HoardMCP(example_hoard, LOCAL_DEFAULT)
    async with Client(mcp.server) as c:
        res = await c.call_tool("vault_read", {"path": "../etc/passwd"})
    assert res.is_error
    assert '"error": "path_rejected"' in res.content[0].text


async def test_a_read_of_a_note_over_a_mib_takes_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ok
) -> None:
    vault = tmp_path / "vault"
    (vault / "logs").mkdir(parents=True)
    (vault / "logs" / "small.md").write_text("# Small\n\nA short log.\n", encoding="utf-8")
    big = "# Big\n\n" + "a long log line of the night shift\n" * 40_000  # 1.4 MB
    (vault / "logs" / "big.md").write_text(big, encoding="utf-8")
    with Hoard(vault, tmp_path / "state") as hoard:
        threads = _spy(monkeypatch, hoard, "reading.read")
        mcp = HoardMCP(hoard, LOCAL_DEFAULT)
        async with Client(mcp.server) as c:
            ok(await c.call_tool("vault_read", {"path": "logs/big.md"}))
            ok(await c.call_tool("vault_read", {"path": "logs/small.md"}))
        assert threads[0] != threading.get_ident()  # hashed whole: off the loop
        assert threads[1] == threading.get_ident()
