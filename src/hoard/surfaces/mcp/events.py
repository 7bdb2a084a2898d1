"""Change events for clients listening on ``subscriptions/listen`` (protocol 2026-07-28).

``tools/list`` shows each caller only the tools its scopes allow, so the list a client holds
goes stale when the owner changes the tokens file (``hoard token add``/``revoke``, the web
app, an edit by hand, an OAuth consent). :func:`publish_on_change` watches what it is given
(a snapshot of the callers and their scopes) and publishes ``ToolsListChanged`` on the
server's subscription bus when it changes; the SDK's listen handler forwards that to every
stream that asked for ``tools_list_changed``, and the clients list their tools again.
:func:`with_background` runs such a task for as long as the HTTP app lives (from lifespan
startup to shutdown).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Hashable, MutableMapping
from typing import Any

import anyio
from mcp.server.subscriptions import SubscriptionBus, ToolsListChanged

log = logging.getLogger("hoard.events")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

POLL_SECONDS = 1.0
"""How often the snapshot is taken (a stat of the tokens file; parsed only when it changed)."""


async def publish_on_change(
    bus: SubscriptionBus, snapshot: Callable[[], Hashable], every: float = POLL_SECONDS
) -> None:
    """Publish ``ToolsListChanged`` on ``bus`` each time ``snapshot()`` gives a new value;
    runs until cancelled."""
    last = snapshot()
    while True:
        await anyio.sleep(every)
        now = snapshot()
        if now != last:
            last = now
            log.info("callers or scopes changed: telling listening clients to list tools again")
            await bus.publish(ToolsListChanged())


def with_background(app: ASGIApp, task: Callable[[], Coroutine[Any, Any, None]]) -> ASGIApp:
    """``app`` with ``task`` running beside its lifespan (cancelled when the lifespan ends,
    at shutdown). Without a lifespan (a server run with ``lifespan="off"``) it never runs."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(task)
            try:
                await app(scope, receive, send)
            finally:
                tasks.cancel_scope.cancel()

    return wrapped
