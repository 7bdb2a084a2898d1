"""Activity: the ledger's events (caller, operation, path, outcome, time), filterable, each
linking to its note; archived notes with restore."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.app.owner import EventFilter
from hoard.surfaces.web.context import page, web_of


async def activity_page(request: Request) -> Response:
    web = web_of(request)
    q = request.query_params
    f = EventFilter(
        caller=q.get("caller") or None,
        tool=q.get("tool") or None,
        path_prefix=q.get("path") or None,
        decision=q.get("decision") or None,
    )
    events = [e for e in web.desk.events(f) if e.path is None or web.may_show(e.path)]
    archived = [a for a in web.desk.archived() if web.may_show(a.path)]
    name = "_events.html" if request.headers.get("hx-request") else "activity.html"
    return page(request, name, events=events, archived=archived, f=f)


ROUTES = [Route("/activity", activity_page)]
