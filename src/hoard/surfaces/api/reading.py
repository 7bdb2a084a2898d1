"""Routes that find notes: search and list."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.models import ListResult, SearchResult
from hoard.surfaces.api.framework import Op, Param


def reading_ops(hoard: Hoard) -> list[Op]:
    search_params = (
        Param("q", str, "What to look for; any text is valid.", required=True),
        Param("limit", int, "Most results.", 10, minimum=1, maximum=100),
        Param("folder", str, "Only notes below this folder."),
        Param("mode", str, '"natural" (any text) or "fts" (FTS5 grammar).', "natural",
              choices=("natural", "fts")),
        Param("rerank", str, "Rerank a contested top: auto, on or off.", "auto",
              choices=("auto", "on", "off")),
    )  # fmt: skip
    list_flags = (
        Param("recursive", bool, "Walk sub-folders too.", False),
        Param("limit", int, "Most entries.", 500, minimum=1, maximum=100_000),
    )

    return [
        Op("GET", "/search", "search", "Ranked, cited full-text search over the notes.",
           "search", lambda c: hoard.search(
               c.params["q"], c.params["limit"], c.params["folder"], c.params["mode"],
               c.params["rerank"], caller=c.caller),
           {200: SearchResult}, search_params),
        Op("GET", "/list", "list_root", "The vault's root folder as it is on disk now.",
           "search", lambda c: hoard.list(
               "", c.params["recursive"], c.params["limit"], caller=c.caller),
           {200: ListResult}, list_flags),
        Op("GET", "/list/{path}", "list", "A folder of the vault as it is on disk now.",
           "search", lambda c: hoard.list(
               c.params["path"], c.params["recursive"], c.params["limit"], caller=c.caller),
           {200: ListResult},
           (Param("path", str, "The folder, vault-relative.", required=True, where="path",
                  slashes=True), *list_flags)),
    ]  # fmt: skip
