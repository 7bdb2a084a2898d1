"""hoard's MCP prompts: ``orient`` (what changed since a cursor, what waits for confirmation,
stale summaries), ``file-a-note`` (this vault's contract, folders and index rule) and
``review-before-write`` (read, keep the revision, dry-run, then write). Each is built by the
server from the vault as it is now, with the caller's own rights."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.surfaces.mcp.results import ToolHost


def register_prompts(host: ToolHost) -> None:
    hoard = host.hoard
    server = host.server

    @server.prompt(
        name="orient",
        title="Orient yourself in the vault",
        description="A short briefing: what changed since your cursor (or recently), what "
        "waits for a person's confirmation, and which summaries went stale. Ends with the "
        "cursor to pass next time.",
    )
    def orient(
        ctx: Context,
        cursor: Annotated[
            str | None, Field(description="The cursor of your last briefing or vault_recent.")
        ] = None,
    ) -> str:
        brief = hoard.briefer.briefing(caller=host.caller_of(ctx), cursor=cursor, max_bytes=4096)
        return brief.text + f"\nNext time, pass cursor={brief.cursor}\n"

    @server.prompt(
        name="file-a-note",
        title="File a note that passes the gates",
        description="This vault's frontmatter contract, its folders and which keep an "
        "_INDEX.md, and how to file a note so it passes the write gates the first time.",
    )
    def file_a_note(
        ctx: Context,
        folder: Annotated[str | None, Field(description="Where you mean to file it.")] = None,
    ) -> str:
        return hoard.guides.file_a_note(caller=host.caller_of(ctx), folder=folder)

    @server.prompt(
        name="review-before-write",
        title="Review before you write",
        description="The safe way to change a note: read it, keep its revision, dry-run the "
        "change, then write with that revision.",
    )
    def review_before_write(
        path: Annotated[str | None, Field(description="The note you mean to change.")] = None,
    ) -> str:
        return hoard.guides.review_before_write(path)
