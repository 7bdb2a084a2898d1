"""Live updates by polling with ``ETag``: ``/live`` answers 304 while nothing changed and
the new stamp when the ledger recorded a write, a proposal, a decision, an access request
or a grant, or the index took in a note changed outside hoard. The page script then fires
``hoard:changed`` and the parts that listen reload; an open editor's text is never replaced."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hoard.surfaces.web.context import web_of


async def live(request: Request) -> Response:
    web = web_of(request)
    etag = f'"{web.desk.stamp()}"'
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"etag": etag})
    return JSONResponse({"stamp": etag.strip('"')}, headers={"etag": etag})


ROUTES = [Route("/live", live)]
