"""The JSON API fuzzed against its own OpenAPI document with schemathesis (property-based):
no server error, no response that breaks its own schema or status list, and no file of the
vault changed except the ones a successful call asked to change.

Bounded for the default suite (a few examples per operation on a 2-core machine); raise
``HOARD_FUZZ_EXAMPLES`` for a longer run (``make fuzz-api``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.surfaces.api.conftest import Api, note, serving

EXAMPLES = int(os.environ.get("HOARD_FUZZ_EXAMPLES", "12"))
FUZZ_CALLER = "fuzz-owner-7f3a9c"


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("fuzz")) as served:
        _, token = served.store.add(FUZZ_CALLER, "read,write,confirm,maintenance,admin", "direct")
        served.tokens[FUZZ_CALLER] = token
        yield served


@pytest.fixture(scope="module")
def api_schema(fuzzed: Api) -> Any:
    doc = fuzzed.client(FUZZ_CALLER).get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(doc)
    schema.config.update(base_url=f"{fuzzed.url}/api/v1")
    return schema


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for p in root.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _asked(case: Any, response: Any) -> set[str]:
    """The files a successful call may change: the note it names, and what it reports."""
    asked: set[str] = set()
    params = case.path_parameters or {}
    if case.operation.path.startswith("/notes/") and "path" in params:
        asked.add(str(params["path"]))
    if isinstance(case.body, dict) and isinstance(case.body.get("path"), str):
        asked.add(case.body["path"])
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        for key in ("path", "index_path", "new_path"):
            if isinstance(body.get(key), str):
                asked.add(body[key])
        for moved in body.get("files") or []:  # a move: every file it reports touching
            if isinstance(moved, dict) and isinstance(moved.get("path"), str):
                asked.add(moved["path"])
    return asked


def _check(case: Any, fuzzed: Api) -> None:
    before = _snapshot(fuzzed.vault)
    response = case.call(headers={"Authorization": f"Bearer {fuzzed.tokens[FUZZ_CALLER]}"})
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
    after = _snapshot(fuzzed.vault)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if response.status_code >= 300:
        assert not changed, f"{case.method} {case.formatted_path} failed but changed {changed}"
    else:
        unasked = {p for p in changed if p not in _asked(case, response)}
        assert not unasked, f"{case.method} {case.formatted_path} changed {unasked}"


KNOWN_PATHS = (
    "tech/hub.md", "tech/other.md", "tech/_INDEX.md", "life/long.md", "secret/plan.md",
    "personal-notes/diary.md", "tech/fuzzed.md", "life/fuzzed-new.md", "personal-notes/new.md",
)  # fmt: skip
EDITS = st.sampled_from([
    {"op": "append", "text": "appended by the fuzzer"},
    {"op": "prepend", "text": "prepended"},
    {"op": "append_to_section", "heading": "Nope", "text": "x"},
    {"op": "find_replace", "find": "the", "replace": "THE", "expected_count": 1},
    {"op": "set_fields", "fields": {"status": "draft"}},
    {"op": "remove_fields", "keys": ["title"]},
    {"op": "add_tags", "tags": ["fuzzed"]},
    {"op": "remove_tags", "tags": ["alpha", "beta"]},
])  # fmt: skip
WRITE_METHODS = ("PUT", "POST", "PATCH")


@st.composite
def _cases(draw: st.DrawFn, operation: Any, vault: Path) -> Any:
    """The operation's generated case; half the time aimed at real notes with a real revision
    and well-formed content, so the fuzzer also reaches the gates and the write path."""
    case = draw(operation.as_strategy())
    if not draw(st.booleans()):
        return case
    target = draw(st.sampled_from(KNOWN_PATHS))
    if case.path_parameters and "path" in case.path_parameters:
        case.path_parameters["path"] = target
    if isinstance(case.body, dict):
        for key in ("path", "source_path"):
            if key in case.body:
                case.body[key] = target
        if "content" in case.body and draw(st.booleans()):
            case.body["content"] = note(draw(st.sampled_from(["Fuzz", "Hub"])), draw(st.text()))
        if "edits" in case.body and draw(st.booleans()):
            case.body["edits"] = draw(st.lists(EDITS, min_size=1, max_size=3))
        if "new_path" in case.body:
            case.body["new_path"] = draw(st.sampled_from(KNOWN_PATHS))
    file = vault / target
    if operation.path.startswith("/notes/") and operation.method.upper() in WRITE_METHODS:
        case.headers = dict(case.headers or {})
        case.headers.pop("If-None-Match", None)
        case.headers.pop("If-Match", None)
        if file.exists():
            case.headers["If-Match"] = f'"{hashlib.sha256(file.read_bytes()).hexdigest()}"'
        else:
            case.headers["If-None-Match"] = "*"
    return case


@pytest.mark.slow
def test_no_call_breaks_the_server_its_schema_or_an_unasked_file(
    fuzzed: Api, api_schema: Any
) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 25
    for operation in operations:

        @given(case=_cases(operation, fuzzed.vault))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case: Any) -> None:
            _check(case, fuzzed)

        run()
