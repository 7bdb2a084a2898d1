"""Resource subscriptions: a client subscribes to a note (``vault://<path>``) or to every
change (``vault://recent``) and is sent ``notifications/resources/updated`` when it changes,
from any source (hoard's writes, edits on disk, a git pull, another process on the vault).

- 2025 protocol era: ``resources/subscribe`` and ``resources/unsubscribe`` (handled here;
  the SDK only routes them). A subscription lives until it is unsubscribed, its session
  ends, or its caller can no longer see the note (a grant expired): then it is dropped
  without a word, so that nothing is said about a note the caller may not see.
- 2026-07-28 era: ``subscriptions/listen`` with resource subscriptions (the SDK's listen
  handler, fed through the server's subscription bus). The bus cannot tell one stream's
  caller from another's, so changes to protected notes are never published on it (neither
  under their URI nor as ``vault://recent``); every other note's changes are.

One poller per running server (the server's lifespan) asks the app's change feed every
:data:`POLL_SECONDS`, and only while someone is subscribed.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    EmptyResult,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)

from hoard.app.hoard import Hoard
from hoard.app.orientation.feed import ChangeFeed
from hoard.core.errors import HoardError
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller, is_protected

log = logging.getLogger("hoard.mcp")

SCHEME = "vault://"
RECENT = "vault://recent"
POLL_SECONDS = 0.5


class CountingBus(InMemorySubscriptionBus):
    """The in-process bus, knowing whether any listen stream is open."""

    def __init__(self) -> None:
        super().__init__()
        self.listeners = 0
        self.on_subscribe: Callable[[], None] = lambda: None
        """Called as a listen stream opens (the change feed starts from that moment)."""

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        undo = super().subscribe(listener)
        self.listeners += 1
        self.on_subscribe()
        done = False

        def unsubscribe() -> None:
            nonlocal done
            if not done:
                done = True
                self.listeners -= 1
            undo()

        return unsubscribe


@dataclass
class _Sub:
    session: Any
    caller: Caller
    path: str | None
    """The note's path, or ``None`` for ``vault://recent``."""


def note_of(uri: str) -> str | None:
    """The note a subscription URI names (``None`` for ``vault://recent``); a URI that is
    not hoard's is invalid params."""
    if uri == RECENT:
        return None
    if not uri.startswith(SCHEME):
        raise MCPError(INVALID_PARAMS, f"not a vault:// resource: {uri}")
    try:
        return normalize_note_path(uri[len(SCHEME) :])
    except HoardError as exc:
        raise MCPError(INVALID_PARAMS, f"not a note resource: {uri}") from exc


def connection_of(session: Any) -> object:
    """What a subscription belongs to: the client's connection. The SDK makes a new
    ``ServerSession`` for every request around the one connection it holds (not public in
    SDK 2.3); a notification sent through any of them goes out on the connection."""
    return getattr(session, "_connection", session)


class NoteSubscriptions:
    def __init__(
        self, hoard: Hoard, bus: CountingBus, caller_of_request: Callable[[object], Caller]
    ) -> None:
        self.hoard = hoard
        self.bus = bus
        self.caller_of_request = caller_of_request
        self.subs: dict[tuple[int, str], _Sub] = {}
        self.watched: set[int] = set()
        """The connections whose end will drop their subscriptions."""
        self.feed: ChangeFeed | None = None
        bus.on_subscribe = self.start_feed

    def start_feed(self) -> None:
        """Changes from now on reach the subscribers (a feed made later would miss a change
        made right after a subscription)."""
        if self.feed is None:
            try:
                self.feed = self.hoard.change_feed()
            except Exception:
                log.exception("resource subscriptions: cannot start the change feed")

    # -- the 2025 era's requests ------------------------------------------------------------

    async def subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        uri = str(params.uri)
        path = note_of(uri)
        caller = self.caller_of_request(getattr(ctx, "request", None))
        connection = connection_of(ctx.session)
        if id(connection) not in self.watched:
            self._end_with(connection)
        self.subs[(id(connection), uri)] = _Sub(ctx.session, caller, path)
        self.start_feed()
        return EmptyResult()

    def _end_with(self, connection: object) -> None:
        """Drop the connection's subscriptions when it closes (its exit stack unwinds as the
        session ends), so that none outlives it nor passes to a later connection that
        happens to reuse its ``id``."""
        stack = getattr(connection, "exit_stack", None)
        if isinstance(stack, AsyncExitStack):
            self.watched.add(id(connection))
            stack.callback(self.drop_connection, id(connection))

    def drop_connection(self, connection_id: int) -> None:
        self.watched.discard(connection_id)
        for key in [k for k in self.subs if k[0] == connection_id]:
            del self.subs[key]

    async def unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        self.subs.pop((id(connection_of(ctx.session)), str(params.uri)), None)
        return EmptyResult()

    # -- delivery ---------------------------------------------------------------------------

    def _visible(self, sub: _Sub, path: str) -> bool:
        return self.hoard.access.can_see(path, caller=sub.caller)

    async def publish(self, paths: list[str]) -> None:
        """Tell every subscriber of these notes, and of ``vault://recent``, that they
        changed."""
        protected = self.hoard.config.protected
        for path in paths:
            if not is_protected(path, protected):
                await self.bus.publish(ResourceUpdated(uri=SCHEME + path))
        if any(not is_protected(p, protected) for p in paths):
            await self.bus.publish(ResourceUpdated(uri=RECENT))
        changed = set(paths)
        for key, sub in list(self.subs.items()):
            if sub.path is None:
                seen = [p for p in paths if self._visible(sub, p)]
                if seen:
                    await self._send(key, sub, RECENT)
            elif sub.path in changed:
                if not self._visible(sub, sub.path):
                    self.subs.pop(key, None)  # the caller lost sight of it: dropped, silently
                    continue
                await self._send(key, sub, SCHEME + sub.path)

    async def _send(self, key: tuple[int, str], sub: _Sub, uri: str) -> None:
        try:
            await sub.session.send_resource_updated(uri)
        except Exception:  # the session ended: its subscriptions end with it
            self.subs.pop(key, None)

    def wanted(self) -> bool:
        return bool(self.subs) or self.bus.listeners > 0

    async def run(self, every: float = POLL_SECONDS) -> None:
        """Poll the change feed while anyone is subscribed; runs until cancelled."""
        while True:
            await anyio.sleep(every)
            if not self.wanted():
                self.feed = None
                continue
            feed = self.feed
            if feed is None:
                self.start_feed()
                continue
            try:
                paths = await anyio.to_thread.run_sync(feed.poll)
                if paths:
                    await self.publish(paths)
            except Exception:
                log.exception("resource subscriptions: the change feed failed; retrying")
                self.feed = None

    def lifespan(self) -> Callable[[Any], Any]:
        """The server lifespan that runs :meth:`run` beside it."""

        @asynccontextmanager
        async def running(_server: Any) -> AsyncIterator[dict[str, Any]]:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self.run)
                try:
                    yield {}
                finally:
                    tasks.cancel_scope.cancel()

        return running
