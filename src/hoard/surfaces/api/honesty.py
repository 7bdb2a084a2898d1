"""Routes of claims and synthesis."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.app.honesty import (
    ClaimGetResult,
    ClaimListResult,
    ClaimRecordResult,
    SynthesisRegisterResult,
    SynthesisStatusResult,
)
from hoard.surfaces.api.bodies import ClaimBody, SynthesisBody
from hoard.surfaces.api.framework import Body, Call, Op, Param

NOTE = Param(
    "path", str, "The summary note, vault-relative.", required=True, where="path", slashes=True
)


def honesty_ops(hoard: Hoard) -> list[Op]:
    return [*_claim_writes(hoard), *_claim_reads(hoard), *_synthesis_ops(hoard)]


def _claim_writes(hoard: Hoard) -> list[Op]:
    honesty = hoard.honesty

    def record(call: Call) -> ClaimRecordResult:
        b: ClaimBody = call.body
        return honesty.claims.record(
            b.subject,
            b.property,
            b.value,
            b.source_path,
            b.scope,
            b.valid_from,
            b.valid_until,
            b.supersedes,
            caller=call.caller,
        )

    return [
        Op(
            method="POST",
            path="/claims",
            op_id="claim_record",
            summary="Record a statement bound to the exact revision of its source note.",
            tag="claims",
            handler=record,
            ok={201: ClaimRecordResult},
            body=Body(ClaimBody),
            errors=(400, 403, 404, 409),
        ),
    ]


def _claim_reads(hoard: Hoard) -> list[Op]:
    honesty = hoard.honesty

    def get(call: Call) -> ClaimGetResult:
        p = call.params
        return honesty.claims.get(
            p["subject"], p["property"], p["scope"], p["at"], caller=call.caller
        )

    return [
        Op(
            method="GET",
            path="/claims",
            op_id="claim_list",
            summary="Recorded claims, by subject and/or source note.",
            tag="claims",
            handler=lambda c: honesty.claims.list_claims(
                c.params["subject"], c.params["source_path"], caller=c.caller
            ),
            ok={200: ClaimListResult},
            params=(
                Param("subject", str, "Only claims about this."),
                Param("source_path", str, "Only claims taken from this note."),
            ),
        ),
        Op(
            method="GET",
            path="/claims/{subject}/{property}",
            op_id="claim_get",
            summary=(
                "A claim's value, re-checked against its source; abstains when it changed or "
                "claims disagree."
            ),
            tag="claims",
            handler=get,
            ok={200: ClaimGetResult},
            params=(
                Param("subject", str, "What the statement is about.", required=True, where="path"),
                Param("property", str, "Which property.", required=True, where="path"),
                Param("scope", str, "Where it holds.", "global"),
                Param("at", str, "The moment asked about (ISO 8601; default now)."),
            ),
        ),
    ]


def _synthesis_ops(hoard: Hoard) -> list[Op]:
    honesty = hoard.honesty

    def register(call: Call) -> SynthesisRegisterResult:
        b: SynthesisBody = call.body
        return honesty.syntheses.register(call.params["path"], b.sources, caller=call.caller)

    return [
        Op(
            method="PUT",
            path="/synthesis/{path}",
            op_id="synthesis_register",
            summary="Register a summary note with the current revisions of its sources.",
            tag="synthesis",
            handler=register,
            ok={200: SynthesisRegisterResult},
            params=(NOTE,),
            body=Body(SynthesisBody),
        ),
        Op(
            method="GET",
            path="/synthesis/{path}",
            op_id="synthesis_status",
            summary="Is a summary still backed by its sources?",
            tag="synthesis",
            handler=lambda c: honesty.syntheses.status(c.params["path"], caller=c.caller),
            ok={200: SynthesisStatusResult},
            params=(NOTE,),
        ),
    ]
