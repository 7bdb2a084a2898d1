"""Routes of access: a caller's policy and access requests; for the owner (``admin`` scope),
grants and the callers' tokens."""

from __future__ import annotations

from dataclasses import replace

from hoard.app.admin import TokenAdmin
from hoard.app.hoard import Hoard
from hoard.core.admin_results import (
    CallersResult,
    GrantInfo,
    GrantsResult,
    NewTokenResult,
    RevokedResult,
)
from hoard.core.models import AccessRequestResult, PolicyResult
from hoard.surfaces.api.bodies import AccessRequestBody, ApproveBody, GrantBody, TokenBody
from hoard.surfaces.api.framework import Body, Call, Op, Param

ADMIN_ERRORS = (400, 403, 404, 409)


def access_ops(hoard: Hoard, tokens: TokenAdmin) -> list[Op]:
    admin, maint = hoard.admin, hoard.maintenance

    def request_access(call: Call) -> AccessRequestResult:
        body: AccessRequestBody = call.body
        req = maint.request_access(body.glob, body.reason, caller=call.caller)
        route = f"/api/v1/admin/access-requests/{req.request_id}/approve"
        return replace(req, message=f"{req.message} (or POST {route})")

    def grant(call: Call) -> GrantInfo:
        b: GrantBody = call.body
        return tokens.grant(b.caller, b.glob, b.minutes, caller=call.caller)

    def approve(call: Call) -> GrantInfo:
        b: ApproveBody = call.body
        return admin.approve(call.params["request_id"], b.minutes, caller=call.caller)

    def add_token(call: Call) -> NewTokenResult:
        b: TokenBody = call.body
        return tokens.add(
            b.name,
            ",".join(b.scopes),
            b.write_mode,
            b.confirm_own,
            ",".join(b.read),
            ",".join(b.write),
            caller=call.caller,
        )

    def path_param(name: str, text: str) -> tuple[Param, ...]:
        return (Param(name, str, text, required=True, where="path"),)

    return [
        Op("GET", "/policy", "policy", "What this caller may do: scopes, write mode, private "
           "and protected globs, its grants.", "access",
           lambda c: maint.policy(caller=c.caller), {200: PolicyResult}, inline=lambda c: True),
        Op("POST", "/access-requests", "request_access",
           "Ask the owner for a time-limited grant to see protected notes.", "access",
           request_access, {201: AccessRequestResult}, (), Body(AccessRequestBody)),
        Op("GET", "/admin/grants", "grants", "Active grants and pending access requests.",
           "admin", lambda c: admin.grants(caller=c.caller), {200: GrantsResult}),
        Op("POST", "/admin/grants", "grant", "Grant a caller sight of protected notes.",
           "admin", grant, {201: GrantInfo}, (), Body(GrantBody), ADMIN_ERRORS),
        Op("DELETE", "/admin/grants/{grant_id}", "revoke_grant", "Revoke a grant.", "admin",
           lambda c: admin.revoke_grant(c.params["grant_id"], caller=c.caller),
           {200: RevokedResult},
           path_param("grant_id", "The grant to revoke.")),
        Op("POST", "/admin/access-requests/{request_id}/approve", "approve",
           "Approve a pending access request: a grant for its caller and glob.", "admin",
           approve, {201: GrantInfo}, path_param("request_id", "The pending request."),
           Body(ApproveBody), ADMIN_ERRORS),
        Op("GET", "/admin/tokens", "tokens", "The callers in the tokens file (never tokens).",
           "admin", lambda c: tokens.callers(caller=c.caller), {200: CallersResult}),
        Op("POST", "/admin/tokens", "add_token",
           "Add a caller; its token is in this answer only, never stored.", "admin",
           add_token, {201: NewTokenResult}, (), Body(TokenBody), ADMIN_ERRORS),
        Op("DELETE", "/admin/tokens/{name}", "revoke_token", "Revoke a caller's token.",
           "admin", lambda c: tokens.revoke(c.params["name"], caller=c.caller),
           {200: RevokedResult}, path_param("name", "The caller to revoke.")),
    ]  # fmt: skip
