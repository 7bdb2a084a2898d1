"""The vault's images for the signed-in owner (``/file/<path>``), and ticking a task on a
note page (``POST /task/<path>``).

An image is served only when its path is a normalised vault path (no ``..``, no dot-files,
no symlinks), not protected, not private unless the page may show private notes, and of an
allowed image type; with ``nosniff`` and, for SVG, ``Content-Security-Policy: sandbox`` so
a script inside never runs, even when the file is opened directly."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError, InvalidArgument, NotFound
from hoard.core.models import WriteResult
from hoard.surfaces.web.context import caller_of, web_of
from hoard.surfaces.web.embeds import image_type

SVG_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"


async def vault_file(request: Request) -> Response:
    web = web_of(request)
    asked = request.path_params["path"]
    kind = image_type(asked)
    if kind is None:
        raise NotFound("the web app serves only images from the vault", path=asked)
    rel, data = web.desk.attachment(asked)
    web.check_shown(rel)
    headers: dict[str, str] = {}  # nosniff and no-store come from the web guard
    if kind == "image/svg+xml":
        headers["Content-Security-Policy"] = SVG_CSP
        headers["Content-Disposition"] = "attachment"
    return Response(data, media_type=kind, headers=headers)


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
