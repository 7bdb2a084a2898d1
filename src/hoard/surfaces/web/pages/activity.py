"""Activity: the ledger's events (caller, operation, path, outcome, time), filterable, each
linking to its note; archived notes with restore."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.app.owner import EventFilter
from hoard.surfaces.web.context import page, web_of

PAGE_SIZE = 50
"""Events a page; the archived notes come first, above them, so Restore is one screen away."""


def _page_number(raw: str | None) -> int:
    try:
        return max(0, int(raw or 0))
    except ValueError:
        return 0


async def activity_page(request: Request) -> Response:
    web = web_of(request)
    q = request.query_params
    number = _page_number(q.get("page"))
    f = EventFilter(
        caller=q.get("caller") or None,
        tool=q.get("tool") or None,
        path_prefix=q.get("path") or None,
        decision=q.get("decision") or None,
        limit=(number + 1) * PAGE_SIZE + 1,
    )
    rows = web.desk.events(f)
    more = len(rows) > (number + 1) * PAGE_SIZE
    rows = rows[number * PAGE_SIZE : (number + 1) * PAGE_SIZE]
    events = [e for e in rows if e.path is None or web.may_show(e.path)]
    archived = [a for a in web.desk.archived() if web.may_show(a.path)]
    name = "_events.html" if request.headers.get("hx-request") else "activity.html"
    paging = {"number": number, "more": more, "query": {k: v for k, v in q.items() if k != "page"}}
    return page(request, name, events=events, archived=archived, f=f, paging=paging)


ROUTES = [Route("/activity", activity_page)]
