"""vault_daily on an Obsidian-style vault: the daily note found in the configured folder and
format, made from the template through the write path, a proposal in propose mode."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from datetime import date

import pytest

from hoard.core.config import Config, ContractConfig
from hoard.core.contract import check_contract
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.policy import Caller

PROPOSER = Caller("agent", frozenset({"read", "write"}), "propose")
TEMPLATE = (
    "---\ntags: [daily, log]\n---\n# {{title}}\n\nWritten {{date:dddd D MMMM}} at {{time}}.\n"
)


@pytest.fixture
def obsidian(vault, put):
    settings = {"folder": "Journal", "format": "YYYY/MM/YYYY-MM-DD ddd", "template": "tpl/Day"}
    put(".obsidian/daily-notes.json", json.dumps(settings))
    put("tpl/Day.md", TEMPLATE)
    return vault


def test_the_daily_note_is_found_in_the_configured_folder_and_format(obsidian, put, open_hoard):
    put("Journal/2026/03/2026-03-05 Thu.md", "# log\n")
    h = open_hoard()
    r = h.daily("2026-03-05", caller=h.owner)
    assert (r.status, r.exists, r.created) == ("found", True, False)
    assert r.path == "Journal/2026/03/2026-03-05 Thu.md"
    assert r.revision == hashlib.sha256(b"# log\n").hexdigest()
    assert r.template == "tpl/Day.md"


def test_a_missing_daily_note_is_missing_and_nothing_is_written(obsidian, open_hoard):
    h = open_hoard()
    r = h.daily("2026-03-06", caller=h.owner)
    assert (r.status, r.exists, r.revision) == ("missing", False, None)
    assert not (obsidian / "Journal").exists()


def test_create_makes_it_from_the_template_filled_and_passing_the_contract(obsidian, open_hoard):
    h = open_hoard()
    r = h.daily("2026-03-05", create=True, caller=h.owner)
    file = obsidian / "Journal" / "2026" / "03" / "2026-03-05 Thu.md"
    raw = file.read_bytes()
    assert (r.status, r.created, r.exists) == ("written", True, True)
    assert r.revision == hashlib.sha256(raw).hexdigest()
    text = raw.decode()
    assert "# 2026-03-05 Thu\n\nWritten Thursday 5 March at " in text
    assert "{{" not in text and "tags: [daily, log]" in text
    assert check_contract(raw, ContractConfig()) == []
    again = h.daily("2026-03-05", create=True, caller=h.owner)
    assert (again.status, again.created, again.revision) == ("found", False, r.revision)


def test_hoard_toml_wins_and_today_is_the_default(vault, put, open_hoard):
    put("hoard.toml", '[daily]\nfolder = "days"\nformat = "DD-MM-YYYY"\n')
    put(".obsidian/daily-notes.json", '{"folder": "Journal"}')
    h = open_hoard()
    r = h.daily(create=True, caller=h.owner)
    assert r.path == f"days/{date.today():%d-%m-%Y}.md" and r.status == "written"
    assert check_contract((vault / r.path).read_bytes(), ContractConfig()) == []


def test_a_caller_in_propose_mode_gets_a_proposal_and_no_file(obsidian, open_hoard):
    h = open_hoard()
    r = h.daily("2026-03-05", create=True, caller=PROPOSER)
    assert r.status == "proposed" and r.proposal_id and not r.created
    assert "Written Thursday 5 March" in (r.diff or "")
    assert not (obsidian / "Journal").exists()
    h.writes.confirm(r.proposal_id, caller=h.owner)
    assert h.daily("2026-03-05", caller=PROPOSER).status == "found"


def test_a_bad_date_or_a_missing_template_is_refused(obsidian, open_hoard, vault):
    h = open_hoard()
    with pytest.raises(InvalidArgument, match="YYYY-MM-DD"):
        h.daily("5 March", caller=h.owner)
    (vault / "tpl" / "Day.md").unlink()
    with pytest.raises(NotFound, match=r"daily template 'tpl/Day\.md'"):
        h.daily("2026-03-05", create=True, caller=h.owner)


def test_a_template_the_caller_may_not_see_is_neither_named_nor_copied(obsidian, open_hoard):
    h = open_hoard(config=dataclasses.replace(Config(), protected=("tpl/**",)))
    r = h.daily("2026-03-05", create=True, caller=PROPOSER)
    assert r.template is None
    assert "Written" not in (r.diff or "") and "tpl/" not in (r.diff or "")
    assert h.daily("2026-03-05", caller=h.owner).template == "tpl/Day.md"
