"""The tools an agent orients itself with (what changed, a note's neighbourhood) and the two
tools ChatGPT's connectors call (``search``, ``fetch``: the id is the note's path, the url
its page in the web app, or a ``vault://`` URI where no web address is served)."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated
from urllib.parse import quote

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.agent_results import ChatDocument, ChatSearchResult, ContextResult, RecentResult
from hoard.surfaces.mcp.results import READ_ONLY, ToolHost, add_tools, tool_result

DESCRIPTIONS = {
    "vault_recent": "What changed in the vault, newest first: created, modified, moved, "
    "archived and restored notes, who changed them (a caller, `outside` for edits made on "
    "disk) and a one-line summary. Pass the returned cursor next time to hear only what "
    "changed since.",
    "vault_context": "A note and its neighbourhood in one answer, within a byte budget: the "
    "note, the notes it links to and that link to it (title, first line), its folder index "
    "entry, similar notes, claims, summary state and pending proposals, each labeled.",
    "search": "Search the vault's notes (for ChatGPT connectors): ids, titles and urls of "
    "the best matches; fetch an id for its text.",
    "fetch": "Fetch one note's full text by the id search returned (its vault path), with "
    "its title, url and metadata (revision, frontmatter).",
}


def note_url(site: str | None, path: str) -> str:
    """Where a person opens the note: the web app's page when a site is served."""
    return f"{site}/n/{quote(path)}" if site else f"vault://{path}"


def register_agent_tools(host: ToolHost) -> None:
    hoard = host.hoard

    @tool_result
    def vault_recent(
        ctx: Context,
        since: Annotated[
            str | None,
            Field(description="Only changes after this time (ISO 8601, or YYYY-MM-DD)."),
        ] = None,
        cursor: Annotated[
            str | None, Field(description="The cursor an earlier vault_recent returned.")
        ] = None,
        folder: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
    ) -> RecentResult:
        return hoard.recent_changes.recent(
            caller=host.caller_of(ctx), since=since, cursor=cursor, folder=folder, limit=limit
        )

    @tool_result
    def vault_context(
        path: Annotated[str, Field(description="Vault-relative note path.")],
        ctx: Context,
        budget_bytes: Annotated[
            int, Field(ge=512, le=262144, description="Most bytes of text in the answer.")
        ] = 16384,
    ) -> ContextResult:
        return hoard.note_context.context(
            path, caller=host.caller_of(ctx), budget_bytes=budget_bytes
        )

    add_tools(
        host,
        [
            (vault_recent, DESCRIPTIONS["vault_recent"], READ_ONLY),
            (vault_context, DESCRIPTIONS["vault_context"], READ_ONLY),
        ],
    )
    if hoard.config.mcp.chatgpt_tools:
        register_chatgpt_tools(host)


def register_chatgpt_tools(host: ToolHost) -> None:
    hoard = host.hoard

    def url_of(path: str) -> str:
        return note_url(host.site_url, path)

    @tool_result
    def search(
        query: Annotated[str, Field(description="What to look for; any text is valid.")],
        ctx: Context,
    ) -> ChatSearchResult:
        return hoard.chat.search(query, caller=host.caller_of(ctx), url_of=url_of)

    @tool_result
    def fetch(
        id: Annotated[str, Field(description="An id that search returned (a note's path).")],
        ctx: Context,
    ) -> ChatDocument:
        return hoard.chat.fetch(id, caller=host.caller_of(ctx), url_of=url_of)

    add_tools(
        host,
        [
            (search, DESCRIPTIONS["search"], READ_ONLY),
            (fetch, DESCRIPTIONS["fetch"], READ_ONLY),
        ],
    )
