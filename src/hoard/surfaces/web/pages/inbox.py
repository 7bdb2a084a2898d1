"""The inbox: pending proposals (caller, age, expiry, diff) with confirm and reject, and
pending access requests with approve-for-N-minutes and deny. A failed confirm shows the
re-run gates' refusal."""

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
        p for p in web.hoard.writes.proposals(caller_of(request)).proposals if web.may_show(p.path)
    ]
    return {
        "proposals": proposals,
        "requests": web.desk.requests(),
        "conflicts": [c for c in web.hoard.sync.conflicts() if web.may_show(c.path)],
        "minutes": DEFAULT_GRANT_MINUTES,
        **extra,
    }


def _answer(request: Request, **extra: Any) -> Response:
    """The whole page, or only its lists for an htmx request."""
    name = "_inbox_lists.html" if request.headers.get("hx-request") else "inbox.html"
    return page(request, name, **_lists(request, **extra))


async def inbox_page(request: Request) -> Response:
    return _answer(request)


async def confirm(request: Request) -> Response:
    web = web_of(request)
    pid = request.path_params["proposal_id"]
    try:
        result = web.hoard.writes.confirm(pid, caller_of(request))
    except HoardError as exc:
        return _answer(request, refusal={"proposal_id": pid, **exc.to_object()})
    return _answer(request, done=f"confirmed {pid}: {getattr(result, 'status', 'done')}")


async def reject(request: Request) -> Response:
    web = web_of(request)
    pid = request.path_params["proposal_id"]
    try:
        web.hoard.writes.reject(pid, caller_of(request))
    except HoardError as exc:
        return _answer(request, refusal={"proposal_id": pid, **exc.to_object()})
    return _answer(request, done=f"rejected {pid}")


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
        grant = web.desk.approve(rid, _minutes(form.get("minutes", DEFAULT_GRANT_MINUTES)))
    except HoardError as exc:
        return _answer(request, refusal={"request_id": rid, **exc.to_object()})
    return _answer(request, done=f"granted {grant.caller} {grant.glob}")


async def deny(request: Request) -> Response:
    web = web_of(request)
    rid = request.path_params["request_id"]
    try:
        web.desk.deny(rid)
    except HoardError as exc:
        return _answer(request, refusal={"request_id": rid, **exc.to_object()})
    return _answer(request, done=f"denied {rid}")


async def badge(request: Request) -> Response:
    return page(request, "_badge.html")


ROUTES = [
    Route("/inbox", inbox_page, methods=["GET"]),
    Route("/inbox/badge", badge, methods=["GET"]),
    Route("/inbox/confirm/{proposal_id}", confirm, methods=["POST"]),
    Route("/inbox/reject/{proposal_id}", reject, methods=["POST"]),
    Route("/inbox/approve/{request_id}", approve, methods=["POST"]),
    Route("/inbox/deny/{request_id}", deny, methods=["POST"]),
]
