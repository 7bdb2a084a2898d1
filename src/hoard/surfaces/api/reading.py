"""Routes that find notes: search (with the frontmatter filters of ``vault_search``), the
tags with their counts, and list."""

from __future__ import annotations

from typing import Any

from hoard.app.hoard import Hoard
from hoard.core.choices import RerankChoice, SearchMode, SemanticChoice, values
from hoard.core.models import ListResult, SearchResult, TagsResult
from hoard.surfaces.api.framework import Call, Op, Param

FILTER_PARAMS = (
    Param("type", str, "Frontmatter type (repeat: any of).", many=True),
    Param("status", str, "Frontmatter status (repeat: any of).", many=True),
    Param("tag", str, "A tag the note must carry (repeat: all of).", many=True),
    Param("any_tag", str, "Tags of which the note carries one (repeat).", many=True),
    Param("updated_after", str, "updated on or after YYYY-MM-DD."),
    Param("updated_before", str, "updated on or before YYYY-MM-DD."),
)
FILTER_KEYS = {"type": "type", "status": "status", "tag": "tags", "any_tag": "tags_any",
               "updated_after": "updated_after", "updated_before": "updated_before"}  # fmt: skip
"""Query parameter -> the key of ``vault_search``'s ``filters``."""


def filters_of(params: dict[str, Any]) -> dict[str, Any] | None:
    """The ``filters`` object of a search from its query parameters (``None``: no filter)."""
    chosen = {key: params[name] for name, key in FILTER_KEYS.items() if params[name]}
    return chosen or None


def reading_ops(hoard: Hoard) -> list[Op]:
    search_params = (
        Param("q", str, "What to look for; any text is valid. Empty (q=) with filters: every "
              "matching note, newest updated first.", required=True),
        Param("limit", int, "Most results.", 10, minimum=1, maximum=100),
        Param("offset", int, "Skip this many results (paging).", 0, minimum=0),
        Param("folder", str, "Only notes below this folder."),
        Param("mode", str, '"natural" (any text), "fts" (FTS5 grammar) or "typeahead" (as '
              'you type: the last word a prefix, titles first).', "natural",
              choices=values(SearchMode)),
        Param("rerank", str, "Rerank a contested top: auto, on or off.", "auto",
              choices=values(RerankChoice)),
        Param("semantic", str, "Blend in the local semantic model: auto (as hoard.toml "
              "says), true or false.", "auto", choices=values(SemanticChoice)),
        *FILTER_PARAMS,
    )  # fmt: skip
    list_flags = (
        Param("recursive", bool, "Walk sub-folders too.", False),
        Param("limit", int, "Most entries.", 500, minimum=1, maximum=100_000),
    )

    def search(c: Call) -> SearchResult:
        p = c.params
        return hoard.searching.search(
            p["q"], p["limit"], p["folder"], p["mode"], p["rerank"], caller=c.caller,
            filters=filters_of(p), offset=p["offset"], semantic=p["semantic"],
        )  # fmt: skip

    return [
        Op("GET", "/search", "search", "Ranked, cited full-text search over the notes, "
           "optionally only notes whose frontmatter matches the filters.",
           "search", search, {200: SearchResult}, search_params),
        Op("GET", "/tags", "tags", "Every tag in the notes you can see, with how many notes "
           "carry it, most used first.", "search",
           lambda c: hoard.searching.fields.tags(c.params["folder"], caller=c.caller),
           {200: TagsResult},
           (Param("folder", str, "Only notes below this folder."),)),
        Op("GET", "/list", "list_root", "The vault's root folder as it is on disk now.",
           "search", lambda c: hoard.reading.list(
               "", c.params["recursive"], c.params["limit"], caller=c.caller),
           {200: ListResult}, list_flags),
        Op("GET", "/list/{path}", "list", "A folder of the vault as it is on disk now.",
           "search", lambda c: hoard.reading.list(
               c.params["path"], c.params["recursive"], c.params["limit"], caller=c.caller),
           {200: ListResult},
           (Param("path", str, "The folder, vault-relative.", required=True, where="path",
                  slashes=True), *list_flags)),
    ]  # fmt: skip
