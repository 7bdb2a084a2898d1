"""The closed choices of the outside contract, each one ``Literal`` defined once.

The MCP tool signatures (their input schemas then carry ``enum``), the JSON API's parameters,
the CLI's ``choices`` and the app's argument checks all take their values from here, as do
the result types that report one. :func:`values` lists a choice's values in order.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from hoard.core.errors import InvalidArgument

SearchMode = Literal["natural", "fts", "typeahead"]
"""How a search reads its query: any text, the FTS5 grammar, or as-you-type."""

RerankChoice = Literal["auto", "on", "off"]
"""Whether a search asks the rerank model: on a contested top, always, or never."""

SemanticChoice = Literal["auto", "true", "false"]
"""Whether a search blends in the local semantic model (``auto``: as ``hoard.toml`` says)."""

ArchiveReason = Literal["archived", "superseded", "retracted"]
"""Why a note leaves the vault for ``archives/``."""

SearchEngine = Literal[
    "fts5",
    "fts5+rerank",
    "fts5+semantic",
    "fts5+semantic+rerank",
    "substring-fallback",
    "index",
]
"""What answered a search: the FTS5 index (with the model steps that took part), the
labeled substring fallback while the index is unusable, or the index's field columns (a
filter listing without a query)."""

SimilarEngine = Literal["semantic", "none"]
"""What answered ``vault_similar``: the model, or nothing when it is not there."""

ClaimStatus = Literal[
    "current",
    "abstained_stale_source",
    "abstained_conflict",
    "expired",
    "no_claim",
    "incomplete",
]
"""The answer of ``claim_get``."""

SynthesisState = Literal["current", "stale", "incomplete", "unregistered"]
"""The answer of ``synthesis_status``."""

LinkResolution = Literal["path", "name", "alias"]
"""How a wikilink found its note: by path, by file name, or by a frontmatter alias."""

TagSource = Literal["frontmatter", "inline", "both"]
"""Where notes write a tag: in the frontmatter's ``tags``, as ``#tag`` in the body, or both."""


def values(choice: Any) -> tuple[str, ...]:
    """The values of a ``Literal`` choice, in order."""
    return tuple(get_args(choice))


def refuse_unless_one_of(name: str, value: object, choice: Any) -> None:
    """:class:`InvalidArgument` naming ``name`` unless ``value`` is one of ``choice``."""
    if not isinstance(value, str) or value not in values(choice):
        allowed = ", ".join(values(choice))
        raise InvalidArgument(f"{name} must be one of {allowed}", **{name: value})
