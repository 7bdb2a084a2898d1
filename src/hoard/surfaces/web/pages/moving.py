"""Rename or move a note (``vault_move`` through the app's move use-case): the page asks for
the new path, shows what the move would touch (the dry run, as a rename and each other
file's role and diff), then moves with the revision the page loaded, links rewritten by default. A
collision, a stale revision or any other refusal is shown and nothing changes."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of a move's dry run as the page shows it."""

    path: str
    role: str
    diff: str
    """Its unified diff; empty for the moved note when its text is unchanged."""


@dataclass(frozen=True, slots=True)
class MovePlan:
    """The move as a rename (the old path, the new one, and whether the note's own text
    changes: a link to itself) and the other files it changes, each with its diff."""

    old: str
    new: str
    note_diff: str
    changes: list[FileChange]


def _file_header(lines: list[str], i: int) -> bool:
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _split(diff: str) -> list[tuple[str, str, str]]:
    """A multi-file unified diff as ``(old, new, text)``, paths without ``a/``/``b/``."""
    lines = diff.splitlines(keepends=True)
    starts = [i for i in range(len(lines)) if _file_header(lines, i)]
    out: list[tuple[str, str, str]] = []
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        old, new = lines[start][4:].strip(), lines[start + 1][4:].strip()
        out.append((old.removeprefix("a/"), new.removeprefix("b/"), "".join(lines[start:end])))
    return out


def move_plan(result: MoveResult) -> MovePlan:
    """The dry run shown as a rename: the old path's removal is the rename's other half, not
    a deletion in red; the note's diff is shown only when its text changes."""
    roles = {f.path: f.role for f in result.files}
    note_diff = ""
    changes: list[FileChange] = []
    for old, new, text in _split(result.diff or ""):
        if old == result.path and new == "/dev/null":
            continue
        if old == result.path and new == result.new_path:
            note_diff = text if "\n@@" in text else ""
            continue
        path = new if new != "/dev/null" else old
        changes.append(FileChange(path, roles.get(path, "link"), text))
    return MovePlan(result.path, result.new_path, note_diff, changes)


def _form(request: Request, path: str, fields: Any) -> dict[str, Any]:
    """The move form's fields: the new path, whether links are rewritten, and the revision
    the owner loaded (the first time: the note's revision now)."""
    web = web_of(request)
    revision = str(fields.get("rev") or fields.get("expected_revision") or "")
    if not revision:
        revision = web.hoard.reading.read(path, caller=caller_of(request)).revision
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
        ctx["moving"] = move_plan(ctx["plan"])
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
