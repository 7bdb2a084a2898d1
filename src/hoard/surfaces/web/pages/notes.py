"""A note: rendered, with its properties, links, backlinks, synthesis state, claims and
history (every preserved revision with a diff against the next); ``/wl/<target>`` resolves
a wikilink; ``/rev/<id>`` shows one preserved revision."""

from __future__ import annotations

import difflib
from typing import Any
from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.core.models import HistoryResult, LinksResult, RevisionContent
from hoard.surfaces.web.context import SAVED_COOKIE, caller_of, page, web_of
from hoard.surfaces.web.embeds import image_type
from hoard.surfaces.web.markdown import note_href, render_page

MAX_CLAIMS = 20
MAX_REVISIONS = 30
"""The newest preserved revisions shown with their diffs (older ones: ``/rev/<id>``)."""


def _claims(request: Request, path: str, revision: str) -> list[dict[str, Any]]:
    web = web_of(request)
    caller = caller_of(request)
    out: list[dict[str, Any]] = []
    for c in web.hoard.honesty.claims.list_claims(source_path=path, caller=caller).claims[
        :MAX_CLAIMS
    ]:
        status = "superseded"
        if c.live:
            status = web.hoard.honesty.claims.get(
                c.subject, c.property, c.scope, caller=caller
            ).status
        out.append({"claim": c, "status": status, "source_changed": c.source_revision != revision})
    return out


def history_of(request: Request, path: str, current: bytes | None) -> dict[str, Any]:
    """Every preserved revision of ``path`` with a diff against the next one (the last
    against the file as it is now, or nothing when it is gone)."""
    web = web_of(request)
    hist = web.hoard.writes.retirement.history(path, caller=caller_of(request))
    assert isinstance(hist, HistoryResult)
    shown = hist.revisions[-MAX_REVISIONS:]
    texts: list[str] = []
    for r in shown:
        rev = web.hoard.writes.retirement.history(
            revision_id=r.revision_id, caller=caller_of(request)
        )
        assert isinstance(rev, RevisionContent)
        texts.append(rev.content if rev.encoding == "utf-8" else "(binary content)\n")
    now = current.decode("utf-8", "replace") if current is not None else None
    nexts: list[str | None] = [*texts[1:], now] if texts else []
    rows = []
    for i, (r, old, new) in enumerate(zip(shown, texts, nexts, strict=True)):
        diff = (
            ""
            if new is None
            else "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"{r.revision_id}",
                    "now" if i == len(texts) - 1 else "next",
                )
            )
        )
        rows.append({"rev": r, "diff": diff})
    return {
        "revisions": list(reversed(rows)),
        "older": len(hist.revisions) - len(shown),
        "events": list(reversed(hist.events)),
    }


class PageView:
    """What a note page shows of other notes and files: embeds of notes it may show that
    are not protected (whoever is signed in), images through the owner's desk."""

    def __init__(self, request: Request) -> None:
        self.web = web_of(request)
        self.caller = caller_of(request)

    def note(self, target: str, source: str) -> tuple[str, str] | None:
        path = self.web.desk.resolve(target, source)
        if path is None or not self.web.may_show(path) or self.web.hoard.access.is_protected(path):
            return None
        try:
            read = self.web.hoard.reading.read(path, caller=self.caller)
        except HoardError:
            return None
        return read.path, read.content

    def image(self, path: str, source: str) -> str | None:
        found = self.web.desk.find_attachment(path, source)
        return found if found is not None and self.web.may_show(found) else None


def _link_lists(request: Request, links: LinksResult) -> dict[str, Any]:
    """The note's links and backlinks, each note once, by title."""
    web = web_of(request)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for o in links.outgoing:
        key = (o.resolved_path or o.target).lower()
        if key not in seen and not (o.broken and image_type(o.target)):
            seen.add(key)
            out.append({"target": o.target, "path": o.resolved_path, "broken": o.broken})
    back = list(dict.fromkeys(links.backlinks))
    titles = web.desk.titles([*(x["path"] for x in out if x["path"]), *back])
    for x in out:
        x["title"] = titles.get(x["path"] or "", x["target"])
    return {"outgoing": out, "backlinks": [{"path": b, "title": titles.get(b, b)} for b in back]}


async def note_page(request: Request) -> Response:
    web = web_of(request)
    caller = caller_of(request)
    path = request.path_params["path"]
    web.check_shown(path)
    read = web.hoard.reading.read(path, caller=caller)
    links = web.hoard.reading.links(read.path, caller=caller)
    wikilinks = {o.target.lower(): o.resolved_path for o in links.outgoing}
    rendered = render_page(read.content, read.path, wikilinks, PageView(request))
    ctx: dict[str, Any] = {
        "note": read,
        "html": rendered.html,
        "heading": rendered.title,
        "links": _link_lists(request, links),
        "claims": _claims(request, read.path, read.revision),
        "synthesis": web.hoard.honesty.syntheses.status(read.path, caller=caller),
        "private": web.hoard.access.is_private(read.path),
        "private_lock": web.hoard.access.private_lock(read.path, caller=caller),
    }
    ctx.update(history_of(request, read.path, read.content.encode("utf-8")))
    ctx["saved"] = unquote(request.cookies.get(SAVED_COOKIE, "")) == read.path
    response = page(request, "note.html", **ctx)
    if ctx["saved"]:
        response.delete_cookie(SAVED_COOKIE, path="/")
    return response


async def wikilink(request: Request) -> Response:
    web = web_of(request)
    target = request.path_params["target"]
    source = request.query_params.get("from", "")
    resolved = web.desk.resolve(target, source)
    if resolved is not None and web.may_show(resolved):
        heading = request.query_params.get("h", "")
        href = note_href(resolved) + ("#" + quote(heading) if heading else "")
        return RedirectResponse(href, status_code=303)
    folder = source.rpartition("/")[0]
    suggestion = (folder + "/" if folder else "") + target.removesuffix(".md") + ".md"
    return page(request, "wl_missing.html", 404, target=target, source=source, new_path=suggestion)


async def revision_page(request: Request) -> Response:
    web = web_of(request)
    rev = web.hoard.writes.retirement.history(
        revision_id=request.path_params["revision_id"], caller=caller_of(request)
    )
    assert isinstance(rev, RevisionContent)
    web.check_shown(rev.path)
    exists = web.hoard.reading.note_size(rev.path) is not None
    return page(request, "revision.html", rev=rev, exists=exists)


async def note_or_error(request: Request) -> Response:
    try:
        return await note_page(request)
    except HoardError as exc:
        if exc.code == "not_found":
            path = request.path_params["path"]
            hist = history_of(request, path, None) if path.endswith(".md") else None
            return page(request, "gone.html", 404, path=path, error=exc.to_object(), hist=hist)
        raise


ROUTES = [
    Route("/n/{path:path}", note_or_error),
    Route("/wl/{target:path}", wikilink),
    Route("/rev/{revision_id}", revision_page),
]
