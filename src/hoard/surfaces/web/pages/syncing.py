"""Git sync in the web app: the Sync button (one pull and push now) and resolving a kept
conflict from the inbox (keep the remote's version or hoard's; the sibling is archived).
The banner of a failing push is on every page (``context.page``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.surfaces.web.context import caller_of, web_of
from hoard.surfaces.web.pages.inbox import _answer


async def sync_now(request: Request) -> Response:
    web = web_of(request)
    try:
        result = web.hoard.sync.sync(caller=caller_of(request))
    except HoardError as exc:
        return _answer(request, refusal=exc.to_object())
    if result.error:
        return _answer(request, refusal={"error": "sync_failed", "message": result.error})
    done = f"synced: pulled {result.pulled[:12]}" if result.pulled else "synced: nothing new"
    done += f", pushed {result.pushed[:12]}" if result.pushed else ""
    if result.conflicts:
        done += f", {len(result.conflicts)} conflict(s) kept both sides"
    return _answer(request, done=done)


async def resolve(request: Request) -> Response:
    web = web_of(request)
    form = await request.form()
    sibling = request.path_params["sibling"]
    try:
        if form.get("keep") == "mine":
            done = web.hoard.sync.resolve(sibling, "mine", caller=caller_of(request))
        else:
            done = web.hoard.sync.resolve(sibling, "remote", caller=caller_of(request))
    except HoardError as exc:
        return _answer(request, refusal=exc.to_object())
    if request.headers.get("hx-request"):
        return _answer(request, done=f"kept the {done.kept} version of {done.path}")
    return RedirectResponse("/inbox", status_code=303)


ROUTES = [
    Route("/sync", sync_now, methods=["POST"]),
    Route("/inbox/resolve/{sibling:path}", resolve, methods=["POST"]),
]
