"""Measuring how deep a JSON text nests without parsing it."""

from __future__ import annotations

import gc
import json

import pytest

from hoard.core.json_depth import MAX_JSON_DEPTH, nests_deeper, shallow_id, too_deep


def test_nesting_up_to_the_limit_passes_and_one_more_does_not() -> None:
    at = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    over = "[" + at + "]"

    assert not too_deep(at) and too_deep(over)
    assert not nests_deeper(json.loads(at), MAX_JSON_DEPTH)
    assert nests_deeper(json.loads(over), MAX_JSON_DEPTH)


def test_text_that_is_not_json_is_measured_by_its_brackets() -> None:
    assert not too_deep("[]]" * 1000)
    assert not too_deep("[" * 10 + "]}" * 1000 + "{" * 50)
    assert too_deep("[{" * 33 + "]" * 5)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"content": "[" * 10_000 + '\\"{' * 500, "id": 3})

    assert not too_deep(text)
    assert shallow_id(text) == 3


@pytest.mark.parametrize(
    ("text", "rid"),
    [
        ('{"jsonrpc":"2.0","id":"abc","params":' + "[" * 9000, "abc"),
        ('{"params":{"id":5,"x":' + "{" * 9000 + '},"id":-12}', None),
        ('{"params":{"id":5},"id":-12,"x":' + "[" * 9000, -12),
        ('{"method":"id","x":' + "[" * 9000, None),
        ('{"id":true,"x":' + "[" * 9000, None),
        ("[" * 9000, None),
    ],
)
def test_the_top_level_id_is_read_by_a_shallow_scan(text: str, rid: object) -> None:
    assert too_deep(text)
    assert shallow_id(text) == rid


def test_an_object_nested_a_million_deep_is_measured_without_recursion() -> None:
    value: object = 1
    gc.disable()  # a million new lists would start a full collection of the whole test run
    try:
        for _ in range(1_000_000):
            value = [value]
    finally:
        gc.enable()

    assert nests_deeper(value, MAX_JSON_DEPTH)
