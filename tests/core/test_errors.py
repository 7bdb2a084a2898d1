"""hoard.core.errors: one exception tree, one mapping to the SPEC's error objects."""

from __future__ import annotations

import pytest

from hoard.core import errors
from hoard.core.errors import (
    ERROR_CODES,
    HTTP_GUARD_CODES,
    ConfigError,
    Conflict,
    ContractViolation,
    Exists,
    HoardError,
    SandboxLimit,
    TooLarge,
)

# SPEC section 4, "Errors", in the order it lists them.
SPEC_CODES = [
    "invalid_argument",
    "path_rejected",
    "not_found",
    "exists",
    "too_large",
    "conflict",
    "contract_violation",
    "private_note",
    "protected",
    "forbidden",
    "proposal_not_found",
    "proposal_expired",
    "bad_query",
    "sandbox_limit",
    "sandbox_error",
    "busy",
    "io_error",
    "ambiguous",  # issue 20 (vault_edit): a section heading that the note repeats
]


def _all_subclasses(cls: type[HoardError]) -> list[type[HoardError]]:
    out: list[type[HoardError]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


ERROR_CLASSES = [
    obj
    for obj in vars(errors).values()
    if isinstance(obj, type) and issubclass(obj, HoardError) and obj is not HoardError
]


def _instance(cls: type[HoardError]) -> HoardError:
    if cls is ConfigError:
        return ConfigError("search.typo", "must be true or false")
    if cls in (Exists, Conflict):
        return cls("already changed", current_revision="ab" * 32)  # type: ignore[call-arg]
    if cls is ContractViolation:
        return ContractViolation(
            "1 violation", [{"field": "tags", "rule": "tags_count", "message": "too few"}]
        )
    return cls("something was refused")


def test_every_error_class_is_defined_in_the_errors_module() -> None:
    assert set(_all_subclasses(HoardError)) == set(ERROR_CLASSES)


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_every_error_becomes_a_spec_error_object(cls: type[HoardError]) -> None:
    exc = _instance(cls)
    obj = exc.to_object()
    assert obj["error"] == cls.code
    assert cls.code in ERROR_CODES + HTTP_GUARD_CODES
    assert isinstance(obj["message"], str)
    assert obj["message"]
    assert 400 <= cls.http_status < 600


def test_the_error_codes_are_exactly_the_specs() -> None:
    assert list(ERROR_CODES) == SPEC_CODES
    assert len(set(ERROR_CODES)) == len(ERROR_CODES)


def test_every_spec_code_has_an_error_class() -> None:
    assert {cls.code for cls in ERROR_CLASSES} == set(SPEC_CODES) | set(HTTP_GUARD_CODES)


def test_the_http_guard_codes_are_no_tools_codes() -> None:
    # SPEC 8: 401, 421 and 503 come from the guard in front of every route; no tool raises them.
    assert not set(HTTP_GUARD_CODES) & set(ERROR_CODES)
    statuses = {cls.code: cls.http_status for cls in ERROR_CLASSES}
    assert [statuses[c] for c in HTTP_GUARD_CODES] == [401, 421, 503]


@pytest.mark.parametrize("cls", [Exists, Conflict])
def test_exists_and_conflict_carry_the_current_revision(cls: type[Exists | Conflict]) -> None:
    exc = cls("there is a newer revision", current_revision="0" * 64)
    assert exc.current_revision == "0" * 64
    assert exc.to_object()["current_revision"] == "0" * 64
    assert cls("gone", current_revision=None).to_object()["current_revision"] is None


def test_a_contract_violation_carries_its_violations() -> None:
    violations = [
        {"field": "tags", "rule": "tags_count", "message": "needs 2 to 5"},
        {"field": "updated", "rule": "date_invalid", "message": "not a date"},
    ]
    obj = ContractViolation("2 violations", violations).to_object()
    assert obj["error"] == "contract_violation"
    assert obj["violations"] == violations
    assert obj["violations"] is not violations


def test_details_become_fields_of_the_error_object() -> None:
    assert SandboxLimit("too slow", limit="time").to_object() == {
        "error": "sandbox_limit",
        "message": "too slow",
        "limit": "time",
    }
    assert TooLarge("big", limit=10, size=11).to_object()["size"] == 11


def test_a_config_error_names_its_key_in_the_message_and_the_object() -> None:
    exc = ConfigError("contract.tags_min", "must be a whole number")
    assert exc.key == "contract.tags_min"
    assert "contract.tags_min" in str(exc)
    assert exc.to_object()["key"] == "contract.tags_min"


def test_the_root_error_is_an_io_error() -> None:
    assert HoardError("x").to_object() == {"error": "io_error", "message": "x"}
