"""Rename or move a note (``vault_move`` through the app's move use-case): the page asks for
the new path, shows what the move would touch (the dry run: every file, its role and the
diff), then moves with the revision the page loaded, links rewritten by default. A
collision, a stale revision or any other refusal is shown and nothing changes."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.core.models import MoveResult
from hoard.surfaces.web.context import caller_of, page, web_of
from hoard.surfaces.web.markdown import note_href

ROLE_NAMES = {
    "note": "the note at its new path",
    "link": "links rewritten",
    "index": "folder index updated",
    "old": "removed from its old path",
}


def _form(request: Request, path: str, fields: Any) -> dict[str, Any]:
    """The move form's fields: the new path, whether links are rewritten, and the revision
    the owner loaded (the first time: the note's revision now)."""
    web = web_of(request)
    revision = str(fields.get("rev") or fields.get("expected_revision") or "")
    if not revision:
        revision = web.hoard.read(path, caller=caller_of(request)).revision
    new_path = str(fields.get("to") or fields.get("new_path") or "").strip()
    links = fields.get("update_links", "on") == "on"  # the form sends "off", then "on" if ticked
    return {"path": path, "new_path": new_path, "revision": revision, "update_links": links}


def _dry_run(request: Request, form: dict[str, Any]) -> MoveResult:
    web = web_of(request)
    web.check_shown(form["new_path"])
    result = web.hoard.moves.move(
        form["path"],
        form["new_path"],
        form["revision"],
        update_links=form["update_links"],
        dry_run=True,
        caller=caller_of(request),
    )
    return result


async def move_page(request: Request) -> Response:
    """The form, and with ``?to=`` the dry run of that move below it."""
    web = web_of(request)
    path = request.path_params["path"]
    web.check_shown(path)
    form = _form(request, path, request.query_params)
    ctx: dict[str, Any] = {"form": form, "roles": ROLE_NAMES, "plan": None, "error": None}
    if form["new_path"]:
        try:
            ctx["plan"] = _dry_run(request, form)
        except HoardError as exc:
            ctx["error"] = exc.to_object()
            return page(request, "move.html", exc.http_status, **ctx)
        ctx["stale"] = ctx["plan"].previous_revision != form["revision"]
    return page(request, "move.html", **ctx)


async def move_submit(request: Request) -> Response:
    web = web_of(request)
    path = request.path_params["path"]
    web.check_shown(path)
    form = _form(request, path, await request.form())
    ctx: dict[str, Any] = {"form": form, "roles": ROLE_NAMES, "plan": None}
    try:
        web.check_shown(form["new_path"])
        result = web.hoard.moves.move(
            path,
            form["new_path"],
            form["revision"],
            update_links=form["update_links"],
            caller=caller_of(request),
        )
    except HoardError as exc:
        return page(request, "move.html", exc.http_status, error=exc.to_object(), **ctx)
    if result.status == "proposed":  # an owner session writes directly; kept for safety
        query = urlencode({"proposal": result.proposal_id or ""})
        return RedirectResponse(f"/inbox?{query}", status_code=303)
    return RedirectResponse(note_href(result.new_path), status_code=303)


ROUTES = [
    Route("/move/{path:path}", move_page, methods=["GET"]),
    Route("/move/{path:path}", move_submit, methods=["POST"]),
]
