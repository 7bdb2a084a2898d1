"""The MCP tools that read: search, read, list, links, policy and the access request, plus
notes as ``vault://`` resources."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

import json
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from pydantic import Field

from hoard.core.attachments import is_attachment_path
from hoard.core.choices import RerankChoice, SearchMode, SemanticChoice
from hoard.core.errors import HoardError, NotFound, Protected, TooLarge
from hoard.core.models import (
    AccessRequestResult,
    LinksResult,
    ListResult,
    PolicyResult,
    ReadResult,
    SearchResult,
)
from hoard.surfaces.mcp.results import (
    READ_ONLY,
    RECORDS,
    ToolHost,
    add_tools,
    inline_tool_result,
    tool_result,
)

INLINE_READ_BYTES = 1 << 20
"""``vault_read`` of a note up to this size runs on the event loop; a larger one (up to the
hard cap of hundreds of MB, hashed whole for its revision) takes a worker thread."""

NotePath = Annotated[str, Field(description="Vault-relative note path, e.g. tech/hue-bridge.md.")]

DESCRIPTIONS = {
    "vault_search": "Ranked full-text search over the vault's notes (BM25, stemming, typo "
    "tolerance). Returns paths, titles, scores and snippets to cite; read the notes you need "
    'next. Attachments (PDF, Word, text, HTML) are found by their text: kind "attachment" and '
    "the page.",
    "vault_read": "Read one note by its vault-relative path, with its revision (SHA-256 of the "
    "bytes) and parsed frontmatter (an attachment: its extracted text, page by page, and the "
    "file's SHA-256). Large notes are read in byte ranges (offset, next_offset). "
    "Give heading (or A#B) or block (^id) to read just that section or block: part holds its "
    "byte range in the file, for vault_edit's replace_section or replace_block.",
    "vault_list": "List a folder of the vault as it is on disk now (notes, folders, sizes, times).",
    "vault_links": "A note's outgoing wikilinks (resolved or broken) and the notes that link "
    "to it. Each link says how it resolved (resolved_by: path, name or a frontmatter alias); "
    "a broken link whose alias several notes share lists them in ambiguous. A link to a "
    "heading or ^block the note lacks is broken (resolved_path names the note).",
    "vault_policy": "What this caller may do here: scopes, write mode, private and protected "
    "globs, active grants.",
    "vault_request_access": "Ask the vault owner for a time-limited grant to see protected "
    "notes matching a glob. Records a pending request; nothing is granted until the owner "
    "approves.",
}

HEADING = "Read only the section under this heading (case-insensitive; A#B: B inside A)."
BLOCK = "Read only the paragraph or list item marked with this block id (^id)."
PAGE = "An attachment's page (a PDF's, a Word file's...) to read alone."

FILTERS_HELP = (
    "Only notes whose frontmatter matches: type, status (a string or a list: any of), tags "
    "(all of), tags_any (one of), updated_after / updated_before (YYYY-MM-DD, inclusive), "
    "folder. With an empty query, lists the matching notes, newest updated first."
)


def register_read_tools(host: ToolHost) -> None:
    register_search_and_read(host)
    register_graph_and_policy(host)
    register_note_resource(host)


ModeArg = Annotated[
    SearchMode,
    Field(
        description='"natural": any text; "fts": the FTS5 query grammar; "typeahead": as you '
        "type (the last word a prefix, titles first)."
    ),
]
RerankArg = Annotated[RerankChoice, Field(description="Rerank a contested top: auto, on or off.")]
SemanticArg = Annotated[
    SemanticChoice,
    Field(
        description='Blend in the local semantic model: "auto" (as hoard.toml says), '
        '"true" or "false".'
    ),
]


def register_search_and_read(host: ToolHost) -> None:
    hoard = host.hoard

    @tool_result
    def vault_search(
        query: Annotated[str, Field(description="What to look for; any text is valid.")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        folder: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
        mode: ModeArg = "natural",
        rerank: RerankArg = "auto",
        filters: Annotated[dict[str, Any] | None, Field(description=FILTERS_HELP)] = None,
        offset: Annotated[int, Field(ge=0, description="Skip this many results.")] = 0,
        semantic: SemanticArg = "auto",
    ) -> SearchResult:
        return hoard.searching.search(
            query,
            limit,
            folder,
            mode,
            rerank,
            caller=host.caller_of(ctx),
            filters=filters,
            offset=offset,
            semantic=semantic,
        )

    def small_note(path: object = None, **_: Any) -> bool:
        if isinstance(path, str) and is_attachment_path(path):
            return False  # its text may be extracted now, in the pool: a worker thread waits
        size = hoard.reading.note_size(path)
        return size is None or size <= INLINE_READ_BYTES

    @inline_tool_result(small_note)
    def vault_read(
        path: NotePath,
        ctx: Context,
        offset: Annotated[int, Field(ge=0, description="Byte offset to start at.")] = 0,
        max_bytes: Annotated[int | None, Field(ge=1, description="Most bytes to return.")] = None,
        heading: Annotated[str | None, Field(description=HEADING)] = None,
        block: Annotated[str | None, Field(description=BLOCK)] = None,
        page: Annotated[int | None, Field(ge=1, description=PAGE)] = None,
    ) -> ReadResult:
        caller = host.caller_of(ctx)
        return hoard.reading.read(
            path, offset, max_bytes, caller=caller, heading=heading, block=block, page=page
        )

    @tool_result
    def vault_list(
        ctx: Context,
        path: Annotated[str, Field(description="Folder to list; empty for the root.")] = "",
        recursive: bool = False,
        limit: Annotated[int, Field(ge=1)] = 500,
    ) -> ListResult:
        return hoard.reading.list(path, recursive, limit, caller=host.caller_of(ctx))

    tools = [vault_search, vault_read, vault_list]
    add_tools(host, [(fn, DESCRIPTIONS[fn.__name__], READ_ONLY) for fn in tools])


def register_graph_and_policy(host: ToolHost) -> None:
    hoard = host.hoard

    @tool_result
    def vault_links(
        path: Annotated[str, Field(description="Vault-relative note path.")],
        ctx: Context,
        offset: Annotated[int, Field(ge=0, description="Start of the page (next_offset).")] = 0,
        limit: Annotated[int | None, Field(ge=1, description="Most links per list.")] = None,
    ) -> LinksResult:
        return hoard.reading.links(path, offset, limit, caller=host.caller_of(ctx))

    @inline_tool_result()
    def vault_policy(ctx: Context) -> PolicyResult:
        return hoard.maintenance.policy(caller=host.caller_of(ctx))

    @tool_result
    def vault_request_access(
        glob: Annotated[str, Field(description="The notes you need, e.g. finance/**.")],
        reason: Annotated[str, Field(description="Why, in a sentence, for the owner.")],
        ctx: Context,
    ) -> AccessRequestResult:
        return hoard.maintenance.request_access(glob, reason, caller=host.caller_of(ctx))

    add_tools(
        host,
        [
            (vault_links, DESCRIPTIONS["vault_links"], READ_ONLY),
            (vault_policy, DESCRIPTIONS["vault_policy"], READ_ONLY),
            (vault_request_access, DESCRIPTIONS["vault_request_access"], RECORDS),
        ],
    )


def register_note_resource(host: ToolHost) -> None:
    hoard = host.hoard

    @host.server.resource(
        "vault://{+path}",
        name="note",
        description="A note of the vault, by its vault-relative path.",
        mime_type="text/markdown",
    )
    def note_resource(path: str, ctx: Context) -> str:
        try:
            result = hoard.reading.read(path, caller=host.caller_of(ctx))
            if result.truncated:
                raise TooLarge(
                    "the note is larger than one response; use vault_read with offsets",
                    path=result.path,
                    size=result.size,
                )
        except (NotFound, Protected) as exc:
            # The SDK's own answer for a missing resource (-32602), word for word, so that a
            # protected note cannot be told from a missing one.
            raise ResourceNotFoundError(f"Unknown resource: vault://{path}") from exc
        except HoardError as exc:
            raise ResourceError(json.dumps(exc.to_object(), ensure_ascii=False)) from exc
        return result.content
