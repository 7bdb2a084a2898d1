"""Edit and create through the one write path, with the revision the editor loaded
(``If-Match`` semantics): a conflict shows both versions and loses nothing; contract
violations are listed by field; archive asks for a reason and names the links that will
dangle; restore brings an archived revision back (never over a file). No delete."""

from __future__ import annotations

import datetime
import difflib
from typing import Any, cast
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from hoard.core.choices import ArchiveReason, values
from hoard.core.errors import Conflict, ContractViolation, Exists, HoardError
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter
from hoard.surfaces.web.context import SAVED_COOKIE, caller_of, page, web_of
from hoard.surfaces.web.markdown import note_href, render_note

ARCHIVE_REASONS = values(ArchiveReason)
WHOLE_NOTE = frozenset({"file", "body", "frontmatter"})
"""Violation "fields" that name the note or a part of it rather than a frontmatter key."""


def template_for(folder: str, title: str = "New note") -> str:
    """A new note that passes the default contract, tagged after its folder."""
    tag = (
        "-".join(
            w
            for w in "".join(
                c if c.isalnum() else " " for c in folder.rpartition("/")[2].lower()
            ).split()
        )
        or "inbox"
    )
    tags = [tag, "draft"] if tag != "draft" else ["draft", "inbox"]
    today = datetime.date.today().isoformat()
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: draft\ntags: [{', '.join(tags)}]\n"
        f"updated: {today}\n---\n\n"
    )


def field_rows(content: str, violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frontmatter as written, one row a field, each with the violations that name it
    (a field a rule wants but the note lacks gets a row of its own), so the page can show
    every violation beside its field."""
    split = split_frontmatter(content)
    data = parse_yaml_block(split.yaml_text).data if split.has_block else None
    rows: dict[str, dict[str, Any]] = {}
    for key, value in (data or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        rows[str(key)] = {"field": str(key), "value": shown, "problems": []}
    for v in violations:
        name = str(v.get("field") or "file")
        whole = "(the note as a whole)" if name in WHOLE_NOTE else None
        row = rows.setdefault(name, {"field": name, "value": whole, "problems": []})
        row["problems"].append(v)
    return list(rows.values())


def _editor(request: Request, status: int = 200, **ctx: Any) -> Response:
    return page(request, "edit.html", status, **ctx)


async def edit_page(request: Request) -> Response:
    web = web_of(request)
    path = request.path_params["path"]
    web.check_shown(path)
    note = web.hoard.reading.read(path, caller=caller_of(request))
    return _editor(
        request, path=note.path, content=note.content, revision=note.revision, creating=False
    )


async def new_page(request: Request) -> Response:
    folder = request.query_params.get("folder", "").strip("/")
    path = request.query_params.get("path", "") or (folder + "/" if folder else "") + "new-note.md"
    return _editor(
        request,
        path=path,
        content=template_for(path.rpartition("/")[0]),
        revision="",
        creating=True,
    )


async def save(request: Request) -> Response:
    web = web_of(request)
    form = await request.form()
    path = str(form.get("path", "")).strip()
    content = str(form.get("content", "")).replace("\r\n", "\n")
    expected = str(form.get("expected_revision", "")) or None
    creating = expected is None
    ctx: dict[str, Any] = {"path": path, "content": content, "revision": expected or ""}
    web.check_shown(path)
    try:
        result = web.hoard.writes.write(path, content, expected, caller=caller_of(request))
    except (Conflict, Exists) as exc:
        return _conflict(request, exc, ctx)
    except ContractViolation as exc:
        violations = exc.details.get("violations", [])
        rows = field_rows(content, violations)
        return _editor(
            request, 422, creating=creating, violations=violations, field_rows=rows, **ctx
        )
    except HoardError as exc:
        return _editor(request, exc.http_status, creating=creating, error=exc.to_object(), **ctx)
    response = RedirectResponse(note_href(result.path), status_code=303)
    secure = request.url.scheme == "https" or bool(request.app.state.secure_cookies)
    response.set_cookie(
        SAVED_COOKIE,
        quote(result.path, safe=""),
        max_age=60,
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/",
    )
    return response


def _conflict(request: Request, exc: HoardError, ctx: dict[str, Any]) -> Response:
    web = web_of(request)
    disk = web.hoard.reading.read(ctx["path"], caller=caller_of(request))
    diff = "".join(
        difflib.unified_diff(
            disk.content.splitlines(keepends=True),
            ctx["content"].splitlines(keepends=True),
            "on disk",
            "yours",
        )
    )
    return page(
        request,
        "conflict.html",
        409,
        path=ctx["path"],
        mine=ctx["content"],
        disk=disk.content,
        disk_revision=disk.revision,
        diff=diff,
        message=exc.message,
    )


async def preview(request: Request) -> Response:
    form = await request.form()
    path = str(form.get("path", ""))
    html = render_note(str(form.get("content", "")), path, {})
    return HTMLResponse(html)


async def disk_status(request: Request) -> Response:
    """Whether the note changed on disk since the editor loaded it (the editor polls this
    on live updates; the textarea itself is never replaced)."""
    web = web_of(request)
    path = request.path_params["path"]
    loaded = request.query_params.get("rev", "")
    if not loaded:
        return HTMLResponse("")
    size = web.hoard.reading.note_size(path)
    now = (
        web.hoard.reading.read(path, caller=caller_of(request)).revision
        if size is not None
        else None
    )
    if now == loaded:
        return HTMLResponse("")
    if now is None:
        return HTMLResponse(
            '<p class="warn" role="status">This note was removed on disk since you opened it.</p>'
        )
    return HTMLResponse(
        '<p class="warn" role="status" id="changed-on-disk">This note changed on disk since '
        "you opened it. Your text is kept. "
        '<button type="submit" class="ghost" id="show-both">Compare with the disk version'
        "</button> (nothing is written while they differ)</p>"
    )


async def archive_page(request: Request) -> Response:
    web = web_of(request)
    path = request.path_params["path"]
    web.check_shown(path)
    note = web.hoard.reading.read(path, caller=caller_of(request))
    links = web.hoard.reading.links(note.path, caller=caller_of(request))
    return page(
        request, "archive.html", note=note, backlinks=links.backlinks, reasons=ARCHIVE_REASONS
    )


async def archive_submit(request: Request) -> Response:
    web = web_of(request)
    form = await request.form()
    path = request.path_params["path"]
    web.check_shown(path)
    result = web.hoard.writes.retirement.archive(
        path,
        cast(ArchiveReason, str(form.get("reason", ""))),  # the app refuses any other
        str(form.get("expected_revision", "")),
        caller=caller_of(request),
    )
    return RedirectResponse(note_href(result.path), status_code=303)


async def restore_submit(request: Request) -> Response:
    web = web_of(request)
    result = web.hoard.writes.retirement.restore(
        request.path_params["revision_id"], caller=caller_of(request)
    )
    return RedirectResponse(note_href(result.path), status_code=303)


ROUTES = [
    Route("/edit/{path:path}", edit_page, methods=["GET"]),
    Route("/save", save, methods=["POST"]),
    Route("/new", new_page, methods=["GET"]),
    Route("/preview", preview, methods=["POST"]),
    Route("/disk-status/{path:path}", disk_status, methods=["GET"]),
    Route("/archive/{path:path}", archive_page, methods=["GET"]),
    Route("/archive/{path:path}", archive_submit, methods=["POST"]),
    Route("/restore/{revision_id}", restore_submit, methods=["POST"]),
]
