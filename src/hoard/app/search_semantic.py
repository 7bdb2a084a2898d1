"""The semantic side of a search: whether it takes part, the notes nearest to
the query that the caller may see, and the warnings that say why it did not.

It never fails a search: without the optional install, while the model loads, before any
vector exists or when the model failed to load, the search is lexical only and a warning
says so (``semantic_unavailable``); while the vectors are being built, notes without one yet
are found lexically and ``semantic_partial`` says how far the build is.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import cast

from hoard.adapters.semantic.service import Nearest, Semantic
from hoard.core.choices import SearchMode, SemanticChoice, refuse_unless_one_of
from hoard.core.config import SemanticConfig
from hoard.core.result_warnings import (
    ResultWarning,
    SemanticPartialWarning,
    SemanticUnavailableWarning,
)

Visible = Callable[[str], bool]


def checked_choice(value: object) -> SemanticChoice:
    """``semantic`` as one of :data:`~hoard.core.choices.SemanticChoice` (booleans accepted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    refuse_unless_one_of("semantic", value, SemanticChoice)
    return cast(SemanticChoice, value)


@dataclass
class Side:
    hits: Future[Nearest] | None = None
    """The nearest notes, being found beside the lexical search (see ``Semantic.search``)."""
    weight: float | None = None
    asked: int = 0
    """How many nearest notes were asked for: the lexical side fetches as many."""
    warnings: list[ResultWarning] = field(default_factory=list)


def unavailable(message: str) -> Side:
    return Side(warnings=[SemanticUnavailableWarning(kind="semantic_unavailable", message=message)])


def semantic_side(
    semantic: Semantic | None,
    config: SemanticConfig,
    choice: SemanticChoice,
    mode: SearchMode,
    query: str,
    folder: str | None,
    visible: Visible | None,
) -> Side:
    """The semantic candidates of a search, or why there are none."""
    if choice == "false" or (choice == "auto" and (not config.enabled or mode != "natural")):
        return Side()
    if mode != "natural":
        return unavailable('semantic search needs mode="natural"; this search is lexical only')
    if semantic is None:
        return unavailable("semantic search is off ([semantic] enabled = false in hoard.toml)")
    semantic.prepare()
    status = semantic.status()
    if not semantic.ready():
        why = status.error or f"the model is {status.state}; no note has a vector yet"
        return unavailable(f"{why}; this search is lexical only")

    def allowed(path: str) -> bool:
        in_folder = folder is None or path.startswith(folder + "/")
        return in_folder and (visible is None or visible(path))

    unfiltered = folder is None and visible is None
    hits = semantic.search(query, config.candidates, None if unfiltered else allowed)
    if hits is None:
        return unavailable("the semantic model is not loaded; this search is lexical only")
    side = Side(hits, config.weight, config.candidates)
    if status.embedded < status.notes:
        side.warnings.append(
            SemanticPartialWarning(
                kind="semantic_partial",
                message="notes are still being embedded; those without a vector yet "
                "are found lexically only",
                embedded=status.embedded,
                notes=status.notes,
            )
        )
    return side
