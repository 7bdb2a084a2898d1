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
FILTER_KEYS = {
    "type": "type",
    "status": "status",
    "tag": "tags",
    "any_tag": "tags_any",
    "updated_after": "updated_after",
    "updated_before": "updated_before",
}
"""Query parameter -> the key of ``vault_search``'s ``filters``."""

SEARCH_PARAMS = (
    Param(
        "q",
        str,
        "What to look for; any text is valid. Empty (q=) with filters: every "
        "matching note, newest updated first.",
        required=True,
    ),
    Param("limit", int, "Most results.", 10, minimum=1, maximum=100),
    Param("offset", int, "Skip this many results (paging).", 0, minimum=0),
    Param("folder", str, "Only notes below this folder."),
    Param(
        "mode",
        str,
        '"natural" (any text), "fts" (FTS5 grammar) or "typeahead" (as '
        "you type: the last word a prefix, titles first).",
        "natural",
        choices=values(SearchMode),
    ),
    Param(
        "rerank",
        str,
        "Rerank a contested top: auto, on or off.",
        "auto",
        choices=values(RerankChoice),
    ),
    Param(
        "semantic",
        str,
        "Blend in the local semantic model: auto (as hoard.toml says), true or false.",
        "auto",
        choices=values(SemanticChoice),
    ),
    *FILTER_PARAMS,
)
LIST_FLAGS = (
    Param("recursive", bool, "Walk sub-folders too.", False),
    Param("limit", int, "Most entries.", 500, minimum=1, maximum=100_000),
)


def filters_of(params: dict[str, Any]) -> dict[str, Any] | None:
    """The ``filters`` object of a search from its query parameters (``None``: no filter)."""
    chosen = {key: params[name] for name, key in FILTER_KEYS.items() if params[name]}
    return chosen or None


def reading_ops(hoard: Hoard) -> list[Op]:
    return [*_search_ops(hoard), *_list_ops(hoard)]


def _search_ops(hoard: Hoard) -> list[Op]:
    def search(c: Call) -> SearchResult:
        p = c.params
        return hoard.searching.search(
            p["q"],
            p["limit"],
            p["folder"],
            p["mode"],
            p["rerank"],
            caller=c.caller,
            filters=filters_of(p),
            offset=p["offset"],
            semantic=p["semantic"],
        )

    return [
        Op(
            method="GET",
            path="/search",
            op_id="search",
            summary=(
                "Ranked, cited full-text search over the notes, "
                "optionally only notes whose frontmatter matches the filters."
            ),
            tag="search",
            handler=search,
            ok={200: SearchResult},
            params=SEARCH_PARAMS,
        ),
        Op(
            method="GET",
            path="/tags",
            op_id="tags",
            summary=(
                "Every tag in the notes you can see, with how many notes carry it, most used first."
            ),
            tag="search",
            handler=lambda c: hoard.searching.fields.tags(c.params["folder"], caller=c.caller),
            ok={200: TagsResult},
            params=(Param("folder", str, "Only notes below this folder."),),
        ),
    ]


def _list_ops(hoard: Hoard) -> list[Op]:
    return [
        Op(
            method="GET",
            path="/list",
            op_id="list_root",
            summary="The vault's root folder as it is on disk now.",
            tag="search",
            handler=lambda c: hoard.reading.list(
                "", c.params["recursive"], c.params["limit"], caller=c.caller
            ),
            ok={200: ListResult},
            params=LIST_FLAGS,
        ),
        Op(
            method="GET",
            path="/list/{path}",
            op_id="list",
            summary="A folder of the vault as it is on disk now.",
            tag="search",
            handler=lambda c: hoard.reading.list(
                c.params["path"], c.params["recursive"], c.params["limit"], caller=c.caller
            ),
            ok={200: ListResult},
            params=(
                Param(
                    "path",
                    str,
                    "The folder, vault-relative.",
                    required=True,
                    where="path",
                    slashes=True,
                ),
                *LIST_FLAGS,
            ),
        ),
    ]
