"""The MCP tools of claims and synthesis. Thin: find the caller, call
:class:`hoard.app.honesty.Honesty`, return its typed result; refusals are SPEC error objects."""

# No `from __future__ import annotations` here: the SDK reads these signatures at runtime.

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from hoard.app.honesty import (
    ClaimGetResult,
    ClaimListResult,
    ClaimRecordResult,
    SynthesisRegisterResult,
    SynthesisStatusResult,
)
from hoard.surfaces.mcp.results import READ_ONLY, RECORDS, ToolHost, add_tools, tool_result

NotePath = Annotated[str, Field(description="Vault-relative note path, e.g. tech/hue-bridge.md.")]
Scope = Annotated[str, Field(description='Where the statement holds; "global" by default.')]
When = Annotated[
    str | None,
    Field(description="ISO 8601 date or date-time; no zone means UTC."),
]
Until = Annotated[
    str | None,
    Field(description="End of validity (exclusive; a bare date covers that day)."),
]
Supersedes = Annotated[
    str | None,
    Field(description="The claim_id this one replaces (same subject/property/scope)."),
]

# Reads check files on disk every time: not idempotent in the hint's sense of "same answer".
CHECKS = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


DESCRIPTIONS = {
    "claim_record": "Record an explicit statement (subject, property, value, scope) bound to "
    "the exact revision of the note it came from, optionally with a validity window or "
    "superseding one earlier claim.",
    "claim_get": "The current value of a claim, re-checked against its source note on disk. "
    "Abstains (never picks a winner) when the source changed or live claims disagree; also "
    "answers expired or no_claim.",
    "claim_list": "List recorded claims, by subject and/or source note, with their supersession.",
    "synthesis_register": "Register a summary note with the current revisions of its sources "
    "(at most 32). Re-registering replaces the registration; the old one stays in history.",
    "synthesis_status": "Is a summary still backed by its sources? Walks them transitively "
    "within a stated budget: current, stale (naming the drifted files), incomplete or "
    "unregistered.",
}


def register_honesty_tools(mcp: ToolHost) -> None:
    register_claim_tools(mcp)
    register_synthesis_tools(mcp)


def register_claim_tools(mcp: ToolHost) -> None:
    honesty = mcp.hoard.honesty

    @tool_result
    def claim_record(
        subject: Annotated[str, Field(description="What the statement is about.")],
        property: Annotated[str, Field(description="Which property of the subject.")],
        value: Annotated[str, Field(description="The stated value, as text.")],
        source_path: NotePath,
        ctx: Context,
        scope: Scope = "global",
        valid_from: When = None,
        valid_until: Until = None,
        supersedes: Supersedes = None,
    ) -> ClaimRecordResult:
        return honesty.claims.record(
            subject,
            property,
            value,
            source_path,
            scope,
            valid_from,
            valid_until,
            supersedes,
            caller=mcp.caller_of(ctx),
        )

    @tool_result
    def claim_get(
        subject: str,
        property: str,
        ctx: Context,
        scope: Scope = "global",
        at: Annotated[
            str | None, Field(description="The moment asked about (default: now).")
        ] = None,
    ) -> ClaimGetResult:
        return honesty.claims.get(subject, property, scope, at, caller=mcp.caller_of(ctx))

    @tool_result
    def claim_list(
        ctx: Context,
        subject: Annotated[str | None, Field(description="Only claims about this.")] = None,
        source_path: Annotated[
            str | None, Field(description="Only claims taken from this note.")
        ] = None,
    ) -> ClaimListResult:
        return honesty.claims.list_claims(subject, source_path, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (claim_record, DESCRIPTIONS["claim_record"], RECORDS),
            (claim_get, DESCRIPTIONS["claim_get"], CHECKS),
            (claim_list, DESCRIPTIONS["claim_list"], READ_ONLY),
        ],
    )


def register_synthesis_tools(mcp: ToolHost) -> None:
    honesty = mcp.hoard.honesty

    @tool_result
    def synthesis_register(
        path: NotePath,
        sources: Annotated[
            list[str], Field(description="The notes it summarises (1 to 32 paths).")
        ],
        ctx: Context,
    ) -> SynthesisRegisterResult:
        return honesty.syntheses.register(path, sources, caller=mcp.caller_of(ctx))

    @tool_result
    def synthesis_status(path: NotePath, ctx: Context) -> SynthesisStatusResult:
        return honesty.syntheses.status(path, caller=mcp.caller_of(ctx))

    add_tools(
        mcp,
        [
            (synthesis_register, DESCRIPTIONS["synthesis_register"], RECORDS),
            (synthesis_status, DESCRIPTIONS["synthesis_status"], CHECKS),
        ],
    )
