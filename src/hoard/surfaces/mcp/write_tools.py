"""The MCP tools that change the vault (or decide on changes), and the history reader.

All of them go through :class:`hoard.app.writes.write_path.WritePath`, the only write
path. Refusals are tool errors carrying the SPEC error object, as for the read tools.
"""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from hoard.core.choices import ArchiveReason
from hoard.core.models import (
    ArchiveResult,
    FileNoteResult,
    HistoryResult,
    ProposalsResult,
    RecoverResult,
    RejectResult,
    RestoreResult,
    RevisionContent,
    WriteResult,
    to_json,
)
from hoard.surfaces.mcp.results import (
    READ_ONLY,
    ToolHost,
    add_tools,
    set_output_schema,
    tool_result,
)

WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
REMOVES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

Path = Annotated[str, Field(description="Vault-relative note path, e.g. tech/hue-bridge.md.")]
Revision = Annotated[
    str | None,
    Field(description="The note's current revision (SHA-256) when overwriting; omit to create."),
]
DryRun = Annotated[
    bool, Field(description="Check everything, change nothing, and return the preflight.")
]


CONFIRM_RESULTS = (WriteResult, FileNoteResult, ArchiveResult, RestoreResult)
"""A confirmed proposal answers as the write it proposed would have."""
HISTORY_RESULTS = (HistoryResult, RevisionContent)

DESCRIPTIONS = {
    "vault_write": "Create or overwrite one note through every gate (contract, revision check, "
    "lock, atomic replace); the prior bytes are preserved first. Callers in propose mode get a "
    "proposal with a diff instead; dry_run only checks.",
    "vault_confirm": "Apply a pending proposal after re-running every gate against the note as "
    "it is now (needs the confirm scope).",
    "vault_proposals": "List pending proposals with their diffs.",
    "vault_reject": "Drop a pending proposal; nothing is written.",
    "vault_file_note": "Write a note and add its line to the folder's _INDEX.md as one "
    "journaled transaction that a crash cannot leave half-done.",
    "vault_recover": "Complete or report an interrupted vault_file_note transaction; never "
    "overwrites a file that changed meanwhile.",
    "vault_archive": "Retire a note: its exact bytes go into the ledger first, then the file is "
    "removed. Lists the links that now dangle. Nothing is ever deleted.",
    "vault_restore": "Recreate a note from a preserved revision, byte for byte; never over an "
    "existing file.",
    "vault_history": "A note's preserved revisions, the revisions whose bytes are kept (hoard's "
    "writes and saves from outside, in kept) and its events, or one revision's exact content "
    "(by revision_id, or by a kept revision's sha256).",
}


def register_write_tools(mcp: ToolHost) -> None:
    register_note_writes(mcp)
    register_proposal_tools(mcp)
    register_retire_tools(mcp)


def register_note_writes(mcp: ToolHost) -> None:
    writes = mcp.hoard.writes

    @tool_result
    def vault_write(
        path: Path,
        content: str,
        ctx: Context,
        expected_revision: Revision = None,
        dry_run: DryRun = False,
    ) -> WriteResult:
        return writes.write(path, content, expected_revision, dry_run, caller=mcp.caller_of(ctx))

    @tool_result
    def vault_file_note(
        path: Path,
        content: str,
        ctx: Context,
        index_line: Annotated[
            str | None,
            Field(description="The line for the folder's _INDEX.md; default '- [[stem]]'."),
        ] = None,
        expected_revision: Revision = None,
        dry_run: DryRun = False,
    ) -> FileNoteResult:
        return writes.notes.file_note(
            path, content, index_line, expected_revision, dry_run, caller=mcp.caller_of(ctx)
        )

    @tool_result
    def vault_recover(
        transaction_id: Annotated[str, Field(description="The transaction to complete.")],
        ctx: Context,
    ) -> RecoverResult:
        return writes.notes.recover(transaction_id, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (fn, DESCRIPTIONS[fn.__name__], WRITES)
            for fn in (vault_write, vault_file_note, vault_recover)
        ],
    )


def register_proposal_tools(mcp: ToolHost) -> None:
    writes = mcp.hoard.writes

    @tool_result
    def vault_confirm(
        proposal_id: Annotated[str, Field(description="The 8-character proposal id.")],
        ctx: Context,
    ) -> dict[str, Any]:
        result: dict[str, Any] = to_json(writes.confirm(proposal_id, caller=mcp.caller_of(ctx)))
        return result

    @tool_result
    def vault_proposals(ctx: Context) -> ProposalsResult:
        return writes.proposals(caller=mcp.caller_of(ctx))

    @tool_result
    def vault_reject(
        proposal_id: Annotated[str, Field(description="The proposal to drop.")], ctx: Context
    ) -> RejectResult:
        return writes.reject(proposal_id, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (vault_confirm, DESCRIPTIONS["vault_confirm"], WRITES),
            (vault_proposals, DESCRIPTIONS["vault_proposals"], READ_ONLY),
            (vault_reject, DESCRIPTIONS["vault_reject"], WRITES),
        ],
    )
    set_output_schema(mcp, "vault_confirm", CONFIRM_RESULTS)


def register_retire_tools(mcp: ToolHost) -> None:
    writes = mcp.hoard.writes

    @tool_result
    def vault_archive(
        path: Path,
        reason: Annotated[ArchiveReason, Field(description="Why the note leaves the vault.")],
        expected_revision: Annotated[str, Field(description="The note's current revision.")],
        ctx: Context,
    ) -> ArchiveResult:
        return writes.retirement.archive(path, reason, expected_revision, caller=mcp.caller_of(ctx))

    @tool_result
    def vault_restore(
        revision_id: Annotated[str, Field(description="A preserved revision's id.")],
        ctx: Context,
        path: Annotated[
            str | None, Field(description="Where to recreate it; default its old path.")
        ] = None,
    ) -> RestoreResult:
        return writes.retirement.restore(revision_id, path, caller=mcp.caller_of(ctx))

    @tool_result
    def vault_history(
        ctx: Context,
        path: Annotated[
            str | None, Field(description="A note: its preserved revisions and events.")
        ] = None,
        revision_id: Annotated[
            str | None,
            Field(description="One revision (an id, or a kept sha256): its exact content."),
        ] = None,
        offset: Annotated[
            int, Field(ge=0, description="Skip this many newest events (next_offset).")
        ] = 0,
    ) -> dict[str, Any]:
        result: dict[str, Any] = to_json(
            writes.retirement.history(path, revision_id, offset, caller=mcp.caller_of(ctx))
        )
        return result

    add_tools(
        mcp,
        [
            (vault_archive, DESCRIPTIONS["vault_archive"], REMOVES),
            (vault_restore, DESCRIPTIONS["vault_restore"], WRITES),
            (vault_history, DESCRIPTIONS["vault_history"], READ_ONLY),
        ],
    )
    set_output_schema(mcp, "vault_history", HISTORY_RESULTS)
