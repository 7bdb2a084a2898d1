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

NOTE = Param("path", str, "The summary note, vault-relative.", required=True, where="path",
             slashes=True)  # fmt: skip


def honesty_ops(hoard: Hoard) -> list[Op]:
    honesty = hoard.honesty

    def record(call: Call) -> ClaimRecordResult:
        b: ClaimBody = call.body
        return honesty.claims.record(
            b.subject, b.property, b.value, b.source_path, b.scope, b.valid_from,
            b.valid_until, b.supersedes, caller=call.caller,
        )  # fmt: skip

    def get(call: Call) -> ClaimGetResult:
        p = call.params
        return honesty.claims.get(p["subject"], p["property"], p["scope"], p["at"],
                                 caller=call.caller)  # fmt: skip

    def register(call: Call) -> SynthesisRegisterResult:
        b: SynthesisBody = call.body
        return honesty.syntheses.register(call.params["path"], b.sources, caller=call.caller)

    return [
        Op("POST", "/claims", "claim_record",
           "Record a statement bound to the exact revision of its source note.", "claims",
           record, {201: ClaimRecordResult}, (), Body(ClaimBody), (400, 403, 404, 409)),
        Op("GET", "/claims", "claim_list", "Recorded claims, by subject and/or source note.",
           "claims", lambda c: honesty.claims.list_claims(
               c.params["subject"], c.params["source_path"], caller=c.caller),
           {200: ClaimListResult},
           (Param("subject", str, "Only claims about this."),
            Param("source_path", str, "Only claims taken from this note."))),
        Op("GET", "/claims/{subject}/{property}", "claim_get",
           "A claim's value, re-checked against its source; abstains when it changed or "
           "claims disagree.", "claims", get, {200: ClaimGetResult},
           (Param("subject", str, "What the statement is about.", required=True,
                  where="path"),
            Param("property", str, "Which property.", required=True, where="path"),
            Param("scope", str, "Where it holds.", "global"),
            Param("at", str, "The moment asked about (ISO 8601; default now)."))),
        Op("PUT", "/synthesis/{path}", "synthesis_register",
           "Register a summary note with the current revisions of its sources.", "synthesis",
           register, {200: SynthesisRegisterResult}, (NOTE,), Body(SynthesisBody)),
        Op("GET", "/synthesis/{path}", "synthesis_status",
           "Is a summary still backed by its sources?", "synthesis",
           lambda c: honesty.syntheses.status(c.params["path"], caller=c.caller),
           {200: SynthesisStatusResult}, (NOTE,)),
    ]  # fmt: skip
