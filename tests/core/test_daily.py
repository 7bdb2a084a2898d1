"""hoard.core.daily: where a daily note lives and the text a new one starts from."""

from __future__ import annotations

from datetime import datetime

from hoard.core.config import ContractConfig, DailyConfig
from hoard.core.contract import check_contract
from hoard.core.daily import daily_path, fill_template, settings_of, template_path, with_contract

WHEN = datetime(2026, 3, 5, 9, 30)


def test_obsidian_settings_apply_with_the_default_format() -> None:
    s = settings_of({"folder": "journal/", "template": "templates/day"}, DailyConfig())
    assert (s.folder, s.format, s.template) == ("journal", "YYYY-MM-DD", "templates/day")
    assert daily_path(s, WHEN) == "journal/2026-03-05.md"
    assert template_path(s) == "templates/day.md"


def test_a_key_set_in_hoard_toml_wins_over_obsidians() -> None:
    obs = {"folder": "journal", "format": "DD.MM.YYYY", "template": "t"}
    s = settings_of(obs, DailyConfig(format="YYYY/MM/YYYY-MM-DD dddd"))
    assert daily_path(s, WHEN) == "journal/2026/03/2026-03-05 Thursday.md"
    assert s.template == "t"


def test_no_settings_file_means_the_vault_root_and_no_template() -> None:
    s = settings_of(None, DailyConfig())
    assert daily_path(s, WHEN) == "2026-03-05.md"
    assert template_path(s) is None


def test_template_placeholders_are_filled_as_obsidians_templates_plugin_fills_them() -> None:
    text = "# {{title}}\n{{date}} {{ time }} {{date:dddd, MMMM Do}} {{TIME:HH:mm:ss}} {{other}}\n"
    assert fill_template(text, WHEN, "2026-03-05") == (
        "# 2026-03-05\n2026-03-05 09:30 Thursday, March 5th 09:30:00 {{other}}\n"
    )


def test_the_contracts_fields_are_added_when_the_template_lacks_them() -> None:
    text = "---\ntitle: My day\ntags: [daily, notes]\n---\n# Log\n"
    out = with_contract(text, ContractConfig(), "2026-03-05", WHEN)
    assert out.startswith("---\ntitle: My day\ntags: [daily, notes]\n")
    assert "type: daily\n" in out and "status: active\n" in out and "updated: 2026-03-05\n" in out
    assert out.endswith("---\n# Log\n")
    assert check_contract(out.encode(), ContractConfig()) == []


def test_an_empty_note_gets_a_frontmatter_that_passes_the_contract() -> None:
    out = with_contract("", ContractConfig(tags_min=3), "2026-03-05", WHEN)
    assert check_contract(out.encode(), ContractConfig(tags_min=3)) == []
    assert "title: 2026-03-05" in out


def test_a_template_that_has_every_field_is_unchanged() -> None:
    text = "---\ntitle: T\ntype: log\nstatus: draft\ntags: [a, b]\nupdated: 2026-01-01\n---\nx\n"
    assert with_contract(text, ContractConfig(), "t", WHEN) == text
