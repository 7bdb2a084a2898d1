"""Resource subscriptions through the SDK's client: a 2025-era client subscribed to a note
is sent ``notifications/resources/updated`` after a hoard write and after an outside edit,
and nothing after it unsubscribes; ``vault://recent`` hears of any change; a caller who
cannot see a note hears nothing of it, nor of a note whose grant expired; a session's end
drops its subscriptions; a 2026-07-28 client listening with resource subscriptions is told
too. Every notice must arrive within the promised 2 s of the change."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.mcp.server import HoardMCP
from tests.helpers import make_vault, note_text

pytestmark = pytest.mark.anyio

PROMISE = 2.0
"""Seconds within which a change is announced."""


@pytest.fixture
def sub_hoard(tmp_path: Path) -> Iterator[Hoard]:
    vault = make_vault(
        tmp_path / "vault",
        {"tech/a.md": note_text("A", "Alpha."), "secret/s.md": note_text("S", "Hidden.")},
    )
    (vault / "hoard.toml").write_text('protected = ["secret/**"]\n')
    with Hoard(vault, tmp_path / "state") as h:
        yield h


class Inbox:
    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))

    async def wait_for(self, uri: str) -> None:
        """Wait for a notice of ``uri``: it fails unless one arrives within the promise of
        the change (the caller made it just before calling)."""
        with anyio.fail_after(PROMISE):
            while uri not in self.uris:
                await anyio.sleep(0.02)


def legacy_client(mcp: HoardMCP, inbox: Inbox) -> Client:
    return Client(mcp.server, mode="legacy", message_handler=inbox)


async def subscribe(c: Client, uri: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the SDK marks the 2025-era call deprecated
        await c.subscribe_resource(uri)


async def unsubscribe(c: Client, uri: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await c.unsubscribe_resource(uri)


async def test_a_subscribed_note_is_announced_after_a_write_and_an_outside_edit_then_not(
    sub_hoard: Hoard,
) -> None:
    inbox = Inbox()
    async with legacy_client(HoardMCP(sub_hoard, OWNER), inbox) as c:
        await subscribe(c, "vault://tech/a.md")
        read = sub_hoard.reading.read("tech/a.md", caller=OWNER)
        sub_hoard.writes.write(
            "tech/a.md", note_text("A", "Alpha, twice."), read.revision, caller=OWNER
        )
        await inbox.wait_for("vault://tech/a.md")
        inbox.uris.clear()
        note = sub_hoard.vault.root / "tech" / "a.md"
        note.write_text(note_text("A", "Alpha, edited in another editor."))
        await inbox.wait_for("vault://tech/a.md")
        await unsubscribe(c, "vault://tech/a.md")
        await anyio.sleep(1.0)  # a notice already on its way when it unsubscribed may land
        inbox.uris.clear()
        note.write_text(note_text("A", "Alpha, edited once more."))
        await anyio.sleep(2.5)
    assert inbox.uris == []


async def test_recent_hears_of_any_change_and_a_caller_hears_nothing_it_cannot_see(
    sub_hoard: Hoard, agent: Caller
) -> None:
    owner_inbox, agent_inbox = Inbox(), Inbox()
    async with (
        legacy_client(HoardMCP(sub_hoard, OWNER), owner_inbox) as owner_c,
        legacy_client(HoardMCP(sub_hoard, agent), agent_inbox) as agent_c,
    ):
        await subscribe(owner_c, "vault://recent")
        await subscribe(agent_c, "vault://recent")
        await subscribe(agent_c, "vault://secret/s.md")
        sub_hoard.writes.write("secret/new.md", note_text("New secret"), caller=OWNER)
        await owner_inbox.wait_for("vault://recent")
        await anyio.sleep(1.5)
        assert agent_inbox.uris == []
        sub_hoard.writes.write("tech/b.md", note_text("B"), caller=OWNER)
        await agent_inbox.wait_for("vault://recent")
    assert "vault://secret/s.md" not in agent_inbox.uris


async def test_a_listening_2026_client_is_told_of_a_change_to_its_note(sub_hoard: Hoard) -> None:
    mcp = HoardMCP(sub_hoard, OWNER)
    async with (
        Client(mcp.server) as c,
        c.listen(resource_subscriptions=["vault://tech/a.md"]) as sub,
    ):
        read = sub_hoard.reading.read("tech/a.md", caller=OWNER)
        sub_hoard.writes.write("tech/a.md", note_text("A", "Changed."), read.revision, caller=OWNER)
        with anyio.fail_after(PROMISE):
            event = await sub.__anext__()
    assert event == ResourceUpdated(uri="vault://tech/a.md")


async def test_a_subscription_to_a_foreign_uri_is_invalid_params(sub_hoard: Hoard) -> None:
    async with legacy_client(HoardMCP(sub_hoard, OWNER), Inbox()) as c:
        with pytest.raises(MCPError) as raised:
            await subscribe(c, "https://example.com/x")
    assert raised.value.error.code == -32602


def rewrite(h: Hoard, path: str, text: str) -> None:
    """Replace a note as its owner would, with the revision it read."""
    h.writes.write(path, text, h.reading.read(path, caller=OWNER).revision, caller=OWNER)


async def test_the_server_declares_resource_subscriptions(sub_hoard: Hoard) -> None:
    async with legacy_client(HoardMCP(sub_hoard, OWNER), Inbox()) as c:
        resources = c.server_capabilities.resources
    assert resources is not None and resources.subscribe is True


async def test_a_subscription_ends_silently_when_the_callers_grant_expires(
    sub_hoard: Hoard, agent: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub_hoard.ledger.add_grant(agent.name, "secret/**", minutes=5)
    inbox = Inbox()
    mcp = HoardMCP(sub_hoard, agent)
    async with legacy_client(mcp, inbox) as c:
        await subscribe(c, "vault://secret/s.md")
        await subscribe(c, "vault://tech/a.md")
        rewrite(sub_hoard, "secret/s.md", note_text("S", "Seen with the grant."))
        await inbox.wait_for("vault://secret/s.md")
        later = time.time() + 5 * 60 + 1  # the grant has run out by the ledger's clock
        monkeypatch.setattr(sub_hoard.ledger, "clock", lambda: later)
        inbox.uris.clear()
        rewrite(sub_hoard, "secret/s.md", note_text("S", "After the grant."))
        await anyio.sleep(0.2)
        rewrite(sub_hoard, "tech/a.md", note_text("A", "A later change."))
        await inbox.wait_for("vault://tech/a.md")
        await anyio.sleep(0.6)
        assert "vault://secret/s.md" not in inbox.uris
        assert "vault://secret/s.md" not in {uri for _conn, uri in mcp.subscriptions.subs}
        sub_hoard.ledger.add_grant(agent.name, "secret/**", minutes=5)  # seen at once: a
        # grant added here clears the ledger's one-second cache
        rewrite(sub_hoard, "secret/s.md", note_text("S", "A new grant."))
        await anyio.sleep(PROMISE)
    assert inbox.uris == ["vault://tech/a.md"], "a dropped subscription stays dropped"


async def test_the_end_of_a_session_drops_its_subscriptions(sub_hoard: Hoard) -> None:
    mcp = HoardMCP(sub_hoard, OWNER)
    async with legacy_client(mcp, Inbox()) as c:
        await subscribe(c, "vault://tech/a.md")
        await subscribe(c, "vault://recent")
        assert len(mcp.subscriptions.subs) == 2
        async with legacy_client(mcp, Inbox()) as other:
            await subscribe(other, "vault://tech/a.md")
            assert len(mcp.subscriptions.subs) == 3
        assert {uri for _conn, uri in mcp.subscriptions.subs} == {
            "vault://tech/a.md",
            "vault://recent",
        }
        assert len(mcp.subscriptions.subs) == 2
    assert mcp.subscriptions.subs == {}
    assert not mcp.subscriptions.wanted(), "with no subscriber the change feed stops"
