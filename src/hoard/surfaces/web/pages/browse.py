"""Browse: the folder tree from the live filesystem (notes by title; the vault's
``hoard.toml`` and dot-files such as ``.git`` or ``.obsidian`` left out), tags with counts,
recent changes."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.core.config import CONFIG_NAME
from hoard.surfaces.web.context import caller_of, page, web_of


def _shown_in_browse(path: str) -> bool:
    """Not the vault's own configuration (dot-files never reach here: the listing leaves
    them out)."""
    return path != CONFIG_NAME


async def browse_page(request: Request) -> Response:
    web = web_of(request)
    folder = request.query_params.get("path", "").strip("/")
    listing = web.hoard.reading.list(folder, caller=caller_of(request))
    entries = [
        e
        for e in listing.entries
        if _shown_in_browse(e.path)
        and web.may_show(e.path if e.kind != "folder" else e.path + "/x.md")
    ]
    titles = web.desk.titles([e.path for e in entries if e.kind == "note"])
    parts = folder.split("/") if folder else []
    crumbs = [("/".join(parts[: i + 1]), p) for i, p in enumerate(parts)]
    return page(
        request,
        "browse.html",
        folder=folder,
        crumbs=crumbs,
        entries=entries,
        titles=titles,
        truncated=listing.truncated,
        tags=web.desk.tags()[:100],
        recent=[r for r in web.desk.recent(20) if web.may_show(r[0])],
    )


async def tag_page(request: Request) -> Response:
    web = web_of(request)
    tag = request.path_params["tag"]
    notes = [n for n in web.desk.tagged(tag) if web.may_show(n[0])]
    return page(request, "tag.html", tag=tag, notes=notes)


ROUTES = [Route("/browse", browse_page), Route("/tags/{tag:path}", tag_page)]
