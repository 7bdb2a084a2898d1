"""The closed choices (hoard.core.choices): each defined once, and every surface offers
exactly its values."""

from __future__ import annotations

import argparse
from typing import Any, get_args

import pytest

from hoard.app.hoard import Hoard
from hoard.core.choices import (
    ArchiveReason,
    RerankChoice,
    SearchMode,
    SemanticChoice,
    refuse_unless_one_of,
    values,
)
from hoard.core.errors import InvalidArgument
from hoard.surfaces.api.reading import reading_ops
from hoard.surfaces.cli.commands import build_parser
from hoard.surfaces.web.pages.editing import ARCHIVE_REASONS


def _search_option(dest: str) -> argparse.Action:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    [action] = [a for a in sub.choices["search"]._actions if a.dest == dest]
    return action


@pytest.mark.parametrize(("dest", "choice"), [("mode", SearchMode), ("semantic", SemanticChoice)])
def test_the_cli_search_offers_exactly_the_values_of_the_choice(dest: str, choice: Any) -> None:
    assert tuple(_search_option(dest).choices or ()) == get_args(choice)


def test_the_cli_search_offers_typeahead() -> None:
    assert "typeahead" in (_search_option("mode").choices or ())


def test_the_api_search_parameters_offer_exactly_the_values_of_the_choices(hoard: Hoard) -> None:
    [search] = [op for op in reading_ops(hoard) if op.path == "/search"]
    offered = {p.name: p.choices for p in search.params if p.choices}
    assert offered == {
        "mode": get_args(SearchMode),
        "rerank": get_args(RerankChoice),
        "semantic": get_args(SemanticChoice),
    }


def test_the_web_archive_form_offers_exactly_the_archive_reasons() -> None:
    assert get_args(ArchiveReason) == ARCHIVE_REASONS


@pytest.mark.parametrize("value", ["regex", "", "FTS", None, 3])
def test_a_value_outside_a_choice_is_invalid_argument_naming_the_argument_and_the_values(
    value: object,
) -> None:
    with pytest.raises(InvalidArgument) as info:
        refuse_unless_one_of("mode", value, SearchMode)
    assert info.value.message == "mode must be one of natural, fts, typeahead"
    assert info.value.details == {"mode": value}


@pytest.mark.parametrize("value", values(SearchMode))
def test_every_value_of_a_choice_is_accepted(value: str) -> None:
    refuse_unless_one_of("mode", value, SearchMode)
