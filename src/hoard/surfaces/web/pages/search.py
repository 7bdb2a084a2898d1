"""The search page (as-you-type through htmx), its results fragment and the command
palette's suggestions."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.core.choices import SearchMode
from hoard.core.errors import BadQuery, HoardError
from hoard.core.models import SearchResult
from hoard.surfaces.web.context import TYPING_MIN_CHARS, caller_of, is_fragment, page, web_of
from hoard.surfaces.web.words import refusal_of

__all__ = ["ROUTES", "TYPING_MIN_CHARS"]


def _search(request: Request, limit: int, typing: bool = False) -> dict[str, Any]:
    web = web_of(request)
    q = request.query_params.get("q", "").strip()
    folder = request.query_params.get("folder", "").strip() or None
    mode: SearchMode = "fts" if request.query_params.get("mode") == "fts" else "natural"
    mode = "typeahead" if typing else mode
    ctx: dict[str, Any] = {"q": q, "folder": folder or "", "mode": mode, "result": None}
    if not q:
        return ctx
    try:
        result: SearchResult = web.hoard.searching.search(
            q,
            limit=limit,
            folder=folder,
            mode=mode,
            visible=web.may_show,
            caller=caller_of(request),
        )
    except BadQuery as exc:
        ctx["problem"] = exc.message
        return ctx
    except HoardError as exc:
        ctx["problem"] = refusal_of(exc).text
        return ctx
    corrections: dict[str, list[str]] = {}
    for w in result.warnings:
        if w["kind"] == "typo_corrections":
            corrections.update(w["corrections"])
    extra = [word for words in corrections.values() for word in words]
    ctx.update(result=result, corrections=corrections, extra_terms=extra)
    return ctx


def _folders(request: Request) -> list[str]:
    web = web_of(request)
    listing = web.hoard.reading.list("", caller=caller_of(request))
    return [
        e.path for e in listing.entries if e.kind == "folder" and web.may_show(e.path + "/x.md")
    ]


async def search_page(request: Request) -> Response:
    ctx = _search(request, 20)
    return page(request, "search.html", folders=_folders(request), **ctx)


def page_url(request: Request) -> str:
    """The search page's own address for these results (``/?q=...``, empty fields left
    out), which the browser's address bar shows and a reload or a bookmark opens."""
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if v.strip()])
    return f"/?{query}" if query else "/"


async def search_results(request: Request) -> Response:
    """The results alone for htmx, telling the browser to show the search page's address;
    the whole page when the URL is opened."""
    if not is_fragment(request):
        return await search_page(request)
    response = page(request, "_results.html", **_search(request, 20))
    response.headers["HX-Replace-Url"] = page_url(request)
    return response


async def palette(request: Request) -> Response:
    return page(request, "_palette.html", **_search(request, 8, typing=True))


ROUTES = [
    Route("/", search_page),
    Route("/search/results", search_results),
    Route("/palette", palette),
]
