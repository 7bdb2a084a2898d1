"""The vault's images and attachments for the signed-in owner (``/file/<path>``), and
ticking a task on a note page (``POST /task/<path>``).

A file is served only when its path is a normalised vault path (no ``..``, no dot-files,
no symlinks), not protected, not private unless the page may show private notes, and an
allowed image type or a kind of attachment hoard indexes, up to the size attachments are
indexed at; with ``nosniff``. An SVG gets ``Content-Security-Policy: sandbox`` so a script
inside never runs, even when the file is opened directly; a PDF opens in the browser (at
the page a search hit names); any other attachment (Word, text, HTML) is a sandboxed
download, never a page of this site."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hoard.core.attachments import is_attachment_path
from hoard.core.errors import HoardError, InvalidArgument, NotFound
from hoard.core.models import WriteResult
from hoard.surfaces.web.context import caller_of, web_of
from hoard.surfaces.web.embeds import image_type

DOWNLOAD = "application/octet-stream"
SVG_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"


async def vault_file(request: Request) -> Response:
    web = web_of(request)
    asked = request.path_params["path"]
    kind = image_type(asked)
    download = False
    if kind is None and is_attachment_path(asked):
        kind, download = ("application/pdf", False) if _is_pdf(asked) else (DOWNLOAD, True)
    if kind is None:
        raise NotFound("the web app serves only images and attachments", path=asked)
    rel, data = web.desk.attachment(asked)
    web.check_shown(rel)
    headers: dict[str, str] = {}  # nosniff and no-store come from the web guard
    if kind == "image/svg+xml" or download:
        headers["Content-Security-Policy"] = SVG_CSP
        headers["Content-Disposition"] = "attachment"
    return Response(data, media_type=kind, headers=headers)


def _is_pdf(path: str) -> bool:
    return path.lower().endswith(".pdf")


async def tick_task(request: Request) -> Response:
    """Tick or untick one task of a note: the form's ``line`` (0-based), ``checked``
    (``true``/``false``) and ``revision`` (the one the page loaded). Answers JSON: the new
    revision, or the refusal (a stale revision is a ``conflict``), always with status 200
    so the page shows the refusal itself instead of a failed request."""
    web = web_of(request)
    path = request.path_params["path"]
    form = await request.form()
    try:
        web.check_shown(path)
        line = str(form.get("line", ""))
        if not line.isdigit():
            raise InvalidArgument("line must be a line number", line=line)
        result = web.hoard.edits.tick(
            path,
            int(line),
            form.get("checked") == "true",
            str(form.get("revision", "")),
            caller=caller_of(request),
        )
    except HoardError as exc:
        return JSONResponse({"error": exc.code, "message": exc.message})
    assert isinstance(result, WriteResult)
    return JSONResponse({"revision": result.revision})


ROUTES = [
    Route("/file/{path:path}", vault_file, methods=["GET"]),
    Route("/task/{path:path}", tick_task, methods=["POST"]),
]
