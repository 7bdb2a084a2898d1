"""hoard.core.contract: SPEC section 2, one rule at a time, on notes that otherwise pass."""

from __future__ import annotations

import pytest

from hoard.core.config import ContractConfig
from hoard.core.contract import Violation, check_contract

DEFAULT = ContractConfig()

VALID_FIELDS: dict[str, str] = {
    "title": "Hue bridge",
    "type": "reference",
    "status": "active",
    "tags": "[home, networking]",
    "updated": "2026-03-14",
}


def note(
    overrides: dict[str, str | None] | None = None,
    *,
    extra: str = "",
    body: str = "# Hue bridge\n\nThe bridge talks Zigbee.\n",
) -> bytes:
    """A note that passes the default contract, with ``overrides`` applied to its frontmatter
    (``None`` drops the field, a string is the raw YAML value) and ``extra`` raw YAML lines."""
    fields: dict[str, str | None] = {**VALID_FIELDS, **(overrides or {})}
    lines = [f"{k}: {v}\n" for k, v in fields.items() if v is not None]
    return ("---\n" + "".join(lines) + extra + "---\n" + body).encode()


def rules(raw: bytes, contract: ContractConfig = DEFAULT) -> list[tuple[str, str]]:
    return [(v.field, v.rule) for v in check_contract(raw, contract)]


def test_a_valid_note_has_no_violations() -> None:
    assert check_contract(note(), DEFAULT) == []


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(note(extra="aliases:\n  - Philips Hue\n"), id="extra-fields"),
        pytest.param(note({"tags": "\n  - home\n  - networking"}), id="block-list-tags"),
        pytest.param(note({"tags": "[a, b, c, d, e]"}), id="five-tags"),
        pytest.param(note({"tags": "[a1, home-lab-2]"}), id="digits-and-hyphens"),
        pytest.param(note({"updated": "'2026-03-14'"}), id="quoted-date"),
        pytest.param(note({"updated": "2024-02-29"}), id="leap-day"),
        pytest.param(note({"title": "'12'"}), id="quoted-number-title"),
        pytest.param(note(extra="# a comment\n"), id="comment-full-loader"),
        pytest.param(note().replace(b"\n", b"\r\n"), id="crlf"),
        pytest.param(note(body=""), id="empty-body"),
        pytest.param(note(body="Body\n\nRelated:\n- [[x]]\n"), id="related-block"),
    ],
)
def test_notes_that_follow_the_contract_pass(raw: bytes) -> None:
    assert check_contract(raw, DEFAULT) == []


# --- file-level rules -----------------------------------------------------------------------


def test_bytes_that_are_not_utf8_are_a_utf8_violation() -> None:
    raw = note(body="Caf\xe9 body\n").replace("Caf\xe9".encode(), b"Caf\xe9")
    assert rules(raw) == [("file", "utf8")]


def test_a_byte_order_mark_is_a_bom_violation() -> None:
    assert rules(b"\xef\xbb\xbf" + note()) == [("file", "bom")]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(note(body="last line"), id="missing"),
        pytest.param(note() + b"\n", id="one-blank-line"),
        pytest.param(note() + b"\n\n\n", id="several-blank-lines"),
        pytest.param(note().replace(b"\n", b"\r\n") + b"\r\n", id="crlf-blank-line"),
    ],
)
def test_anything_but_exactly_one_final_newline_is_a_final_newline_violation(raw: bytes) -> None:
    assert rules(raw) == [("file", "final_newline")]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"# Just a heading\n\nText.\n", id="no-block"),
        pytest.param(b"---\ntitle: x\n\nno closing line\n", id="unterminated"),
        pytest.param(b"\n" + note(), id="block-not-first"),
    ],
)
def test_a_note_without_a_leading_block_is_a_frontmatter_missing_violation(raw: bytes) -> None:
    assert rules(raw) == [("frontmatter", "frontmatter_missing")]


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("notes: " + "x" * (17 * 1024) + "\n", id="17-kib"),
        pytest.param("notes: " + "x" * 60_000 + "\n", id="60-kb"),
        pytest.param("notes: " + "[" * 60_000 + "\n", id="60-kb-of-brackets"),
        pytest.param("notes: " + "x" * 70_000 + "\n", id="over-the-parse-cap"),
    ],
)
def test_a_block_over_16_kib_is_a_frontmatter_size_violation(extra: str) -> None:
    assert rules(note(extra=extra)) == [("frontmatter", "frontmatter_size")]


def test_a_block_just_under_16_kib_is_within_the_size_limit() -> None:
    base = len(note(extra="notes: \n").split(b"---\n", 2)[1]) + 8
    raw = note(extra="notes: " + "x" * (16 * 1024 - base - 1) + "\n")
    assert rules(raw) == []


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        ("bad: [unclosed\n", "yaml_syntax"),
        ("title: again\n", "duplicate_key"),
        ("anchor: &a x\n", "yaml_anchor"),
        ("alias: *a\n", "yaml_alias"),
        ("<<: {x: y}\n", "merge_key"),
        ("thing: !custom x\n", "custom_tag"),
        ("thing: !!python/object:os.system x\n", "custom_tag"),
        ("deep: " + "[" * 40 + "]" * 40 + "\n", "yaml_depth"),
    ],
)
def test_a_refused_yaml_construct_is_reported_by_its_rule(extra: str, rule: str) -> None:
    assert rules(note(extra=extra)) == [("frontmatter", rule)]


def test_a_block_that_is_a_list_is_a_not_a_mapping_violation() -> None:
    assert rules(b"---\n- a\n- b\n---\nbody\n") == [("frontmatter", "not_a_mapping")]


def test_an_alias_bomb_in_a_note_is_refused() -> None:
    bomb = 'a: &a ["lol","lol","lol"]\nb: &b [*a,*a,*a]\nc: &c [*b,*b,*b]\n'
    assert rules(note(extra=bomb)) in (
        [("frontmatter", "yaml_anchor")],
        [("frontmatter", "yaml_alias")],
    )


# --- field rules ----------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["title", "type", "status", "tags", "updated"])
def test_a_missing_required_field_is_a_required_violation(field: str) -> None:
    assert rules(note({field: None})) == [(field, "required")]


@pytest.mark.parametrize("field", ["title", "type", "status", "tags", "updated"])
def test_a_required_field_with_no_value_is_a_required_violation(field: str) -> None:
    assert rules(note({field: ""})) == [(field, "required")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", '""'),
        ("title", "'   '"),
        ("title", "42"),
        ("title", "4.5"),
        ("title", "true"),
        ("title", "[a, b]"),
        ("title", "{a: b}"),
        ("type", "3"),
        ("status", "''"),
    ],
)
def test_a_field_that_is_not_a_non_empty_string_is_a_non_empty_string_violation(
    field: str, value: str
) -> None:
    assert rules(note({field: value})) == [(field, "non_empty_string")]


@pytest.mark.parametrize("value", ["home", "'home, networking'", "{a: b}", "3"])
def test_tags_that_are_not_a_list_are_a_tags_type_violation(value: str) -> None:
    assert rules(note({"tags": value})) == [("tags", "tags_type")]


@pytest.mark.parametrize("value", ["[home]", "[a, b, c, d, e, f]", "[]"])
def test_too_few_or_too_many_tags_are_a_tags_count_violation(value: str) -> None:
    assert rules(note({"tags": value})) == [("tags", "tags_count")]


@pytest.mark.parametrize(
    "bad_tag",
    [
        "Home",
        "HOME",
        "home_lab",
        "home-",
        "-home",
        "home--lab",
        "home lab",
        "héme",
        "'home.lab'",
        "12",
        "'#home'",
    ],
)
def test_a_tag_that_is_not_lowercase_kebab_case_is_a_tag_format_violation(bad_tag: str) -> None:
    assert rules(note({"tags": f"[networking, {bad_tag}]"})) == [("tags", "tag_format")]


def test_a_tag_with_a_trailing_newline_is_a_tag_format_violation() -> None:
    # "home\n" is not kebab-case; a pattern checked with re.match and `$` lets it through.
    assert rules(note({"tags": '[networking, "home\\n"]'})) == [("tags", "tag_format")]


def test_a_tag_padded_with_unicode_space_in_a_flow_list_is_a_tag_format_violation() -> None:
    # YAML reads "[home\u3000, net]" as the tag "home\u3000"; the verdict must not depend on
    # which parser (fast path or full loader) read the block.
    assert rules(note({"tags": "[networking, home\u3000]"})) == [("tags", "tag_format")]


def test_repeated_tags_are_a_tags_distinct_violation() -> None:
    assert rules(note({"tags": "[home, home]"})) == [("tags", "tags_distinct")]


@pytest.mark.parametrize(
    "value", ["14-03-2026", "2026-3-14", "2026/03/14", "20260314", "'March 14, 2026'", "[2026]"]
)
def test_a_date_not_written_yyyy_mm_dd_is_a_date_format_violation(value: str) -> None:
    assert rules(note({"updated": value})) == [("updated", "date_format")]


def test_a_date_with_a_trailing_newline_is_a_date_format_violation() -> None:
    assert rules(note({"updated": '"2026-03-14\\n"'})) == [("updated", "date_format")]


@pytest.mark.parametrize("value", ["2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10"])
def test_a_date_that_is_not_on_the_calendar_is_a_date_invalid_violation(value: str) -> None:
    assert rules(note({"updated": value})) == [("updated", "date_invalid")]


# --- together -------------------------------------------------------------------------------


def test_several_problems_are_all_reported() -> None:
    raw = note(
        {"title": None, "type": "7", "tags": "[Home]", "updated": "2026-02-30"},
        body="no final newline",
    )
    assert sorted(rules(raw)) == sorted(
        [
            ("file", "final_newline"),
            ("title", "required"),
            ("type", "non_empty_string"),
            ("tags", "tags_count"),
            ("tags", "tag_format"),
            ("updated", "date_invalid"),
        ]
    )


def test_an_empty_block_reports_every_required_field() -> None:
    assert rules(b"---\n---\nbody\n") == [
        ("title", "required"),
        ("type", "required"),
        ("status", "required"),
        ("tags", "required"),
        ("updated", "required"),
    ]


def test_a_custom_contract_changes_the_verdict() -> None:
    raw = note({"tags": "[home]", "updated": None})
    assert sorted(rules(raw)) == [("tags", "tags_count"), ("updated", "required")]
    relaxed = ContractConfig(tags_min=1, required=("title", "type", "status", "tags"))
    assert check_contract(raw, relaxed) == []


def test_a_custom_tag_pattern_and_frontmatter_cap_are_used() -> None:
    strict = ContractConfig(tag_pattern=r"^[a-z]+$", max_frontmatter_bytes=64)
    assert sorted(rules(note({"tags": "[home, net2]"}), strict)) == [
        ("frontmatter", "frontmatter_size")
    ]
    loose_cap = ContractConfig(tag_pattern=r"^[a-z]+$")
    assert rules(note({"tags": "[home, net2]"}), loose_cap) == [("tags", "tag_format")]


def test_a_custom_date_field_is_checked() -> None:
    contract = ContractConfig(date_fields=("updated", "created"))
    assert rules(note(extra="created: 2026-02-31\n"), contract) == [("created", "date_invalid")]


def test_every_violation_has_a_message_and_a_dict_form() -> None:
    for v in check_contract(note({"tags": "[Home]"}, body="x"), DEFAULT):
        assert v.message
        assert v.as_dict() == {"field": v.field, "rule": v.rule, "message": v.message}
    assert Violation("a", "b", "c").as_dict() == {"field": "a", "rule": "b", "message": "c"}


def test_a_control_character_in_the_frontmatter_is_a_violation_not_a_crash() -> None:
    raw = note({"title": "Hue\x0cbridge"})  # a form feed
    result = rules(raw)
    assert len(result) == 1
    assert result[0][0] == "frontmatter"
