"""Resource subscriptions through the SDK's client: a 2025-era client subscribed to a note
is sent ``notifications/resources/updated`` after a hoard write and after an outside edit,
and nothing after it unsubscribes; ``vault://recent`` hears of any change; a caller who
cannot see a note hears nothing of it; a 2026-07-28 client listening with resource
subscriptions is told too."""

from __future__ import annotations

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

PATIENCE = 10.0
"""How long a test waits for a notice (the promise is 2 s; a loaded machine gets room)."""


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
        with anyio.fail_after(PATIENCE):
            while uri not in self.uris:
                await anyio.sleep(0.05)


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
        with anyio.fail_after(PATIENCE):
            event = await sub.__anext__()
    assert event == ResourceUpdated(uri="vault://tech/a.md")


async def test_a_subscription_to_a_foreign_uri_is_invalid_params(sub_hoard: Hoard) -> None:
    async with legacy_client(HoardMCP(sub_hoard, OWNER), Inbox()) as c:
        with pytest.raises(MCPError) as raised:
            await subscribe(c, "https://example.com/x")
    assert raised.value.error.code == -32602
