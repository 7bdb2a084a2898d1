"""The inbox: pending proposals (caller, age, expiry, diff) with confirm and reject, the ones
that expired unanswered in the last week (greyed, nothing to do), saves from outside that
replaced an agent's write (both versions, restore the agent's or dismiss), and pending access
requests with approve-for-N-minutes and deny. A failed confirm or restore shows the re-run
gates' refusal."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.core.errors import HoardError, InvalidArgument
from hoard.surfaces.web.context import caller_of, page, web_of

DEFAULT_GRANT_MINUTES = 30


def _lists(request: Request, **extra: Any) -> dict[str, Any]:
    web = web_of(request)
    proposals = [
        p
        for p in web.hoard.writes.proposals(caller=caller_of(request)).proposals
        if web.may_show(p.path)
    ]
    return {
        "proposals": proposals,
        "requests": web.hoard.ledger.pending_requests(),
        "conflicts": [c for c in web.hoard.sync.conflicts() if web.may_show(c.path)],
        "clobbers": [
            c for c in web.hoard.clobbers.open(caller=caller_of(request)) if web.may_show(c.path)
        ],
        "stale": web.desk.stale_proposals(),
        "expired": [p for p in web.desk.expired_proposals() if web.may_show(p.path)],
        "minutes": DEFAULT_GRANT_MINUTES,
        **extra,
    }


def _answer(request: Request, **extra: Any) -> Response:
    """The whole page; for htmx, the lists (a live refresh) or, after an action, the lists
    and its outcome, which lives outside them so a live refresh never wipes it: it stays
    until the owner dismisses it or acts again."""
    name = "inbox.html"
    if request.headers.get("hx-request"):
        name = "_inbox_action.html" if request.method == "POST" else "_inbox_lists.html"
    return page(request, name, **_lists(request, **extra))


async def inbox_page(request: Request) -> Response:
    return _answer(request)


def _described(request: Request, pid: str) -> str:
    """``the write of tech/a.md proposed by agent`` (or the bare id of one no longer listed)."""
    for p in web_of(request).hoard.writes.proposals(caller=caller_of(request)).proposals:
        if p.proposal_id == pid:
            action = p.tool.removeprefix("vault_").replace("_", " ")
            return f"the {action} of {p.path} by {p.caller}"
    return f"proposal {pid}"


async def confirm(request: Request) -> Response:
    web = web_of(request)
    pid = request.path_params["proposal_id"]
    what = _described(request, pid)
    try:
        result = web.hoard.writes.confirm(pid, caller=caller_of(request))
    except HoardError as exc:
        refusal = {"proposal_id": pid, "what": f"Confirming {what}", **exc.to_object()}
        return _answer(request, refusal=refusal)
    status = getattr(result, "status", "done")
    return _answer(request, done=f"Confirmed {what}: {status}.")


async def reject(request: Request) -> Response:
    web = web_of(request)
    pid = request.path_params["proposal_id"]
    what = _described(request, pid)
    try:
        web.hoard.writes.reject(pid, caller=caller_of(request))
    except HoardError as exc:
        refusal = {"proposal_id": pid, "what": f"Rejecting {what}", **exc.to_object()}
        return _answer(request, refusal=refusal)
    return _answer(request, done=f"Rejected {what}; nothing was written.")


def _minutes(value: object) -> float:
    try:
        minutes = float(str(value))
    except ValueError as exc:
        raise InvalidArgument("minutes must be a number") from exc
    return minutes


async def approve(request: Request) -> Response:
    web = web_of(request)
    form = await request.form()
    rid = request.path_params["request_id"]
    try:
        grant = web.hoard.ledger.approve_request(
            rid, _minutes(form.get("minutes", DEFAULT_GRANT_MINUTES))
        )
    except HoardError as exc:
        return _answer(request, refusal={"request_id": rid, **exc.to_object()})
    return _answer(request, done=f"Granted {grant.caller} access to {grant.glob}.")


async def deny(request: Request) -> Response:
    web = web_of(request)
    rid = request.path_params["request_id"]
    try:
        web.desk.deny(rid)
    except HoardError as exc:
        return _answer(request, refusal={"request_id": rid, **exc.to_object()})
    return _answer(request, done=f"Denied access request {rid}.")


def _event_id(request: Request) -> int:
    try:
        return int(request.path_params["event_id"])
    except ValueError as exc:
        raise InvalidArgument("not an inbox item") from exc


async def restore_write(request: Request) -> Response:
    """Write the agent's version back over the outside save (through every write gate)."""
    web = web_of(request)
    try:
        result = web.hoard.clobbers.restore(_event_id(request), caller=caller_of(request))
    except HoardError as exc:
        refusal = {"what": "Restoring the agent's version", **exc.to_object()}
        return _answer(request, refusal=refusal)
    if result.status != "written":
        return _answer(request, done=f"Restoring {result.path}: {result.status}.")
    return _answer(request, done=f"Restored the agent's version of {result.path}.")


async def dismiss_clobber(request: Request) -> Response:
    """Keep the outside save; both versions stay in the note's history."""
    web = web_of(request)
    try:
        web.hoard.clobbers.dismiss(_event_id(request), caller=caller_of(request))
    except HoardError as exc:
        return _answer(request, refusal={"what": "Dismissing the item", **exc.to_object()})
    return _answer(request, done="Kept the outside save; both versions stay in its history.")


async def badge(request: Request) -> Response:
    return page(request, "_badge.html")


ROUTES = [
    Route("/inbox", inbox_page, methods=["GET"]),
    Route("/inbox/badge", badge, methods=["GET"]),
    Route("/inbox/confirm/{proposal_id}", confirm, methods=["POST"]),
    Route("/inbox/reject/{proposal_id}", reject, methods=["POST"]),
    Route("/inbox/approve/{request_id}", approve, methods=["POST"]),
    Route("/inbox/deny/{request_id}", deny, methods=["POST"]),
    Route("/inbox/outside/{event_id}/restore", restore_write, methods=["POST"]),
    Route("/inbox/outside/{event_id}/dismiss", dismiss_clobber, methods=["POST"]),
]
