"""The MCP tools for small edits: ``vault_edit``. It goes through the one write
path (:class:`hoard.app.edit.Edits` → :class:`hoard.app.writes.write_path.WritePath`), so its
result and its refusals are ``vault_write``'s."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from hoard.core.models import MoveResult, WriteResult
from hoard.surfaces.mcp.results import ToolHost, add_tools, tool_result
from hoard.surfaces.mcp.write_tools import WRITES, DryRun, Path

EDITS_HELP = (
    "Edits applied in order, all or nothing; each an object with an 'op': "
    '{"op":"append"|"prepend","text"} (the body, after the frontmatter); '
    '{"op":"append_to_section"|"replace_section","heading","level"?,"text"} (the heading '
    "line stays; a section ends at the next heading of the same or a higher level); "
    '{"op":"replace_block","block","text"} (the paragraph or list item marked ^block; the '
    "^block id stays at its end); "
    '{"op":"find_replace","find","replace","expected_count"?} (literal, default 1); '
    '{"op":"set_fields","fields":{...}}; {"op":"remove_fields","keys":[...]}; '
    '{"op":"add_tags"|"remove_tags","tags":[...]}.'
)


def register_edit_tools(mcp: ToolHost) -> None:
    editing = mcp.hoard.edits
    moves = mcp.hoard.moves

    @tool_result
    def vault_edit(
        path: Path,
        edits: Annotated[list[dict[str, Any]], Field(description=EDITS_HELP)],
        expected_revision: Annotated[str, Field(description="The revision you read and edit.")],
        ctx: Context,
        dry_run: DryRun = False,
    ) -> WriteResult:
        return editing.edit(path, edits, expected_revision, dry_run, caller=mcp.caller_of(ctx))

    @tool_result
    def vault_move(
        path: Path,
        new_path: Annotated[str, Field(description="Where the note goes (vault-relative).")],
        expected_revision: Annotated[str, Field(description="The revision you move.")],
        ctx: Context,
        update_links: Annotated[
            bool, Field(description="Rewrite every link to the note (default true).")
        ] = True,
        dry_run: DryRun = False,
    ) -> MoveResult:
        return moves.move(
            path, new_path, expected_revision, update_links, dry_run, caller=mcp.caller_of(ctx)
        )

    add_tools(
        mcp,
        [
            (
                vault_move,
                "Rename or move a note and rewrite every link to it (wikilinks with aliases, "
                "headings and embeds, relative Markdown links) and both folders' _INDEX.md, as "
                "one journaled transaction; dry_run lists every file with its diff.",
                WRITES,
            ),
            (
                vault_edit,
                "Change part of a note without resending it: append, prepend, edit a "
                "section by its heading, find and replace, set or remove frontmatter fields "
                "and tags. The result goes through every vault_write gate and returns "
                "vault_write's result (or a proposal with its diff).",
                WRITES,
            ),
        ],
    )
