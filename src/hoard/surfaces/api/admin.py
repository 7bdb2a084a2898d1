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


def path_param(name: str, text: str) -> tuple[Param, ...]:
    return (Param(name, str, text, required=True, where="path"),)


def access_ops(hoard: Hoard, tokens: TokenAdmin) -> list[Op]:
    return [*_access_ops(hoard), *_grant_ops(hoard, tokens), *_token_ops(tokens)]


def _access_ops(hoard: Hoard) -> list[Op]:
    """A caller's own policy, and its request for sight of protected notes."""
    maint = hoard.maintenance

    def request_access(call: Call) -> AccessRequestResult:
        body: AccessRequestBody = call.body
        req = maint.request_access(body.glob, body.reason, caller=call.caller)
        route = f"/api/v1/admin/access-requests/{req.request_id}/approve"
        return replace(req, message=f"{req.message} (or POST {route})")

    return [
        Op(
            method="GET",
            path="/policy",
            op_id="policy",
            summary=(
                "What this caller may do: scopes, write mode, private "
                "and protected globs, its grants."
            ),
            tag="access",
            handler=lambda c: maint.policy(caller=c.caller),
            ok={200: PolicyResult},
            inline=lambda c: True,
        ),
        Op(
            method="POST",
            path="/access-requests",
            op_id="request_access",
            summary="Ask the owner for a time-limited grant to see protected notes.",
            tag="access",
            handler=request_access,
            ok={201: AccessRequestResult},
            body=Body(AccessRequestBody),
        ),
    ]


def _grant_ops(hoard: Hoard, tokens: TokenAdmin) -> list[Op]:
    """The owner's grants: list, give, revoke, and approve a pending request."""
    admin = hoard.admin

    def grant(call: Call) -> GrantInfo:
        b: GrantBody = call.body
        return tokens.grant(b.caller, b.glob, b.minutes, caller=call.caller)

    def approve(call: Call) -> GrantInfo:
        b: ApproveBody = call.body
        return admin.approve(call.params["request_id"], b.minutes, caller=call.caller)

    return [
        Op(
            method="GET",
            path="/admin/grants",
            op_id="grants",
            summary="Active grants and pending access requests.",
            tag="admin",
            handler=lambda c: admin.grants(caller=c.caller),
            ok={200: GrantsResult},
        ),
        Op(
            method="POST",
            path="/admin/grants",
            op_id="grant",
            summary="Grant a caller sight of protected notes.",
            tag="admin",
            handler=grant,
            ok={201: GrantInfo},
            body=Body(GrantBody),
            errors=ADMIN_ERRORS,
        ),
        Op(
            method="DELETE",
            path="/admin/grants/{grant_id}",
            op_id="revoke_grant",
            summary="Revoke a grant.",
            tag="admin",
            handler=lambda c: admin.revoke_grant(c.params["grant_id"], caller=c.caller),
            ok={200: RevokedResult},
            params=path_param("grant_id", "The grant to revoke."),
        ),
        Op(
            method="POST",
            path="/admin/access-requests/{request_id}/approve",
            op_id="approve",
            summary="Approve a pending access request: a grant for its caller and glob.",
            tag="admin",
            handler=approve,
            ok={201: GrantInfo},
            params=path_param("request_id", "The pending request."),
            body=Body(ApproveBody),
            errors=ADMIN_ERRORS,
        ),
    ]


def _token_ops(tokens: TokenAdmin) -> list[Op]:
    """The owner's callers in the tokens file: list, add, revoke."""

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

    return [
        Op(
            method="GET",
            path="/admin/tokens",
            op_id="tokens",
            summary="The callers in the tokens file (never tokens).",
            tag="admin",
            handler=lambda c: tokens.callers(caller=c.caller),
            ok={200: CallersResult},
        ),
        Op(
            method="POST",
            path="/admin/tokens",
            op_id="add_token",
            summary="Add a caller; its token is in this answer only, never stored.",
            tag="admin",
            handler=add_token,
            ok={201: NewTokenResult},
            body=Body(TokenBody),
            errors=ADMIN_ERRORS,
        ),
        Op(
            method="DELETE",
            path="/admin/tokens/{name}",
            op_id="revoke_token",
            summary="Revoke a caller's token.",
            tag="admin",
            handler=lambda c: tokens.revoke(c.params["name"], caller=c.caller),
            ok={200: RevokedResult},
            params=path_param("name", "The caller to revoke."),
        ),
    ]
