"""vault_links (outgoing, backlinks, broken) and check() (the contract over the vault)."""

from __future__ import annotations

import pytest

from hoard.core.errors import NotFound, PathRejected
from hoard.core.policy import OWNER


@pytest.fixture
def linked(write_note):
    write_note(
        "projects/plan.md",
        "Plan",
        "\n".join(
            [
                "Plain [[bridge]] and aliased [[bridge|the bridge]].",
                "A heading link [[bridge#Firmware update]].",
                "An embed ![[diagram]].",
                "Path style [[tech/zigbee]] and [[tech/zigbee.md]].",
                "Missing [[nowhere-note]] and [[gone/elsewhere]].",
                "`[[in-inline-code]]` is not a link.",
                "```",
                "[[in-a-fence]] is not a link",
                "```",
            ]
        ),
    )
    write_note("tech/bridge.md", "Bridge", "# Firmware update\nsteps")
    write_note("tech/diagram.md", "Diagram", "boxes")
    write_note("tech/zigbee.md", "Zigbee", "mesh; see [[bridge]]")
    write_note("life/unrelated.md", "Unrelated", "no links at all")


def test_outgoing_links_resolve_aliases_headings_embeds_and_paths(linked, open_hoard):
    r = open_hoard().reading.links("projects/plan.md", caller=OWNER)

    assert r.path == "projects/plan.md"
    got = [(o.target, o.resolved_path, o.broken) for o in r.outgoing]
    assert got == [
        ("bridge", "tech/bridge.md", False),
        ("bridge", "tech/bridge.md", False),
        ("bridge", "tech/bridge.md", False),
        ("diagram", "tech/diagram.md", False),
        ("tech/zigbee", "tech/zigbee.md", False),
        ("tech/zigbee.md", "tech/zigbee.md", False),
        ("nowhere-note", None, True),
        ("gone/elsewhere", None, True),
    ]
    by_kind = r.outgoing
    assert by_kind[1].alias == "the bridge"
    assert by_kind[2].heading == "Firmware update"
    assert by_kind[3].embed is True


def test_broken_lists_each_broken_target_once(linked, open_hoard):
    assert open_hoard().reading.links("projects/plan.md", caller=OWNER).broken == [
        "nowhere-note",
        "gone/elsewhere",
    ]


def test_backlinks_list_the_notes_linking_here(linked, open_hoard):
    h = open_hoard()

    assert h.reading.links("tech/bridge.md", caller=OWNER).backlinks == [
        "projects/plan.md",
        "tech/zigbee.md",
    ]
    assert h.reading.links("tech/zigbee.md", caller=OWNER).backlinks == ["projects/plan.md"]
    assert h.reading.links("life/unrelated.md", caller=OWNER).backlinks == []
    assert h.reading.links("life/unrelated.md", caller=OWNER).outgoing == []


def test_links_of_a_missing_note_is_not_found(linked, open_hoard):
    with pytest.raises(NotFound):
        open_hoard().reading.links("tech/missing.md", caller=OWNER)


def test_links_of_a_hostile_path_is_rejected(linked, open_hoard):
    with pytest.raises(PathRejected):
        open_hoard().reading.links("../etc/passwd.md", caller=OWNER)


def test_links_reflect_an_edit_to_the_note_itself_at_once(linked, open_hoard, write_note):
    h = open_hoard()
    write_note("life/unrelated.md", "Unrelated", "now links [[bridge]] and [[nope]]")

    r = h.reading.links("life/unrelated.md", caller=OWNER)

    assert [(o.target, o.broken) for o in r.outgoing] == [("bridge", False), ("nope", True)]


def test_backlinks_include_a_note_written_after_opening(linked, open_hoard, write_note, wait_until):
    h = open_hoard()
    write_note("life/new.md", "New", "points at [[bridge]]")

    wait_until(
        lambda: "life/new.md" in h.reading.links("tech/bridge.md", caller=OWNER).backlinks,
        timeout=3,
    )


def test_a_note_removed_from_disk_has_no_links(linked, vault, open_hoard):
    h = open_hoard()
    (vault / "life" / "unrelated.md").unlink()

    with pytest.raises(NotFound):
        h.reading.links("life/unrelated.md", caller=OWNER)


def test_a_link_prefers_the_note_in_the_same_folder(write_note, open_hoard):
    write_note("a/x.md", "Ax", "see [[shared]]")
    write_note("a/shared.md", "A shared", "a")
    write_note("b/shared.md", "B shared", "b")

    r = open_hoard().reading.links("a/x.md", caller=OWNER)

    assert r.outgoing[0].resolved_path == "a/shared.md"


def test_example_vault_links_of_the_home_automation_project(example_vault, open_hoard):
    r = open_hoard(example_vault).reading.links("projects/home-automation-revamp.md", caller=OWNER)

    assert r.broken == ["zigbee-migration-plan"]
    broken = [o for o in r.outgoing if o.broken]
    assert [(o.target, o.resolved_path) for o in broken] == [("zigbee-migration-plan", None)]
    resolved = {o.target: o.resolved_path for o in r.outgoing if not o.broken}
    assert resolved["hue-bridge"] == "tech/hue-bridge.md"
    assert resolved["tech/zigbee"] == "tech/zigbee.md"
    assert resolved["network-diagram"] == "tech/network-diagram.md"
    assert resolved["proxmox-host"] == "tech/homelab/proxmox-host.md"


def test_example_vault_backlinks_of_the_hue_bridge(example_vault, open_hoard):
    r = open_hoard(example_vault).reading.links("tech/hue-bridge.md", caller=OWNER)

    assert "tech/zigbee.md" in r.backlinks
    assert "projects/home-automation-revamp.md" in r.backlinks
    assert r.backlinks == sorted(set(r.backlinks))


# -- check -------------------------------------------------------------------------------------


def test_the_example_vault_has_no_violations_and_one_broken_link(example_vault, open_hoard):
    result = open_hoard(example_vault).maintenance.check()

    assert result.violations == []
    assert [(b.path, b.target) for b in result.broken_links] == [
        ("projects/home-automation-revamp.md", "zigbee-migration-plan")
    ]
    assert result.checked > 50
    assert result.private_skipped == 5


def test_check_reports_each_violation_with_path_field_and_rule(write_note, open_hoard):
    write_note("tech/good.md", "Good", "fine")
    write_note(
        "tech/bad.md",
        raw="---\ntitle: Bad\ntype: note\nstatus: active\ntags: [Not Kebab]\n"
        "updated: 2026-02-30\n---\nbody\n",
    )
    write_note("tech/none.md", raw="no frontmatter at all\n")

    result = open_hoard().maintenance.check()

    found = {(v.path, v.field, v.rule) for v in result.violations}
    assert ("tech/bad.md", "tags", "tags_count") in found
    assert ("tech/bad.md", "tags", "tag_format") in found
    assert ("tech/bad.md", "updated", "date_invalid") in found
    assert ("tech/none.md", "frontmatter", "frontmatter_missing") in found
    assert not [v for v in result.violations if v.path == "tech/good.md"]
    assert all(v.message for v in result.violations)
    assert result.checked == 3


def test_check_skips_private_notes(write_note, open_hoard):
    write_note("personal-notes/diary.md", raw="no frontmatter, and that is fine\n")
    write_note("personal-notes/deep/more.md", raw="also fine\n")
    write_note("tech/diary.md", raw="no frontmatter, and that is not fine\n")

    result = open_hoard().maintenance.check()

    assert {v.path for v in result.violations} == {"tech/diary.md"}
    assert result.private_skipped == 2
    assert result.checked == 1


def test_check_honours_a_configured_contract(vault, write_note, open_hoard):
    (vault / "hoard.toml").write_text("[contract]\ntags_min = 1\n", encoding="utf-8")
    write_note("tech/one-tag.md", "One", "x", tags=("solo",))

    assert open_hoard().maintenance.check().violations == []


def test_check_sees_a_broken_link_written_after_opening_once_reindexed(write_note, open_hoard):
    write_note("tech/a.md", "A", "fine")
    h = open_hoard()
    write_note("tech/b.md", "B", "see [[nothing-here]]")
    h.maintenance.reindex()

    assert [(b.path, b.target) for b in h.maintenance.check().broken_links] == [
        ("tech/b.md", "nothing-here")
    ]


def test_a_note_with_more_links_than_one_lookup_batch_resolves_every_one(write_note, open_hoard):
    for i in range(0, 1200, 2):  # every even-numbered target exists
        write_note(f"hub/t{i}.md", f"T{i}", "leaf")
    write_note("hub/index.md", "Hub", " ".join(f"[[t{i}]]" for i in range(1200)))

    h = open_hoard()
    outgoing, offset = [], 0
    while True:  # vault_links is paged (limits.links_max)
        page = h.reading.links("hub/index.md", offset=offset, caller=OWNER)
        outgoing += page.outgoing
        if page.next_offset is None:
            break
        offset = page.next_offset

    assert len(outgoing) == 1200
    for i, o in enumerate(outgoing):
        assert (o.resolved_path, o.broken) == (
            (f"hub/t{i}.md", False) if i % 2 == 0 else (None, True)
        )
    assert open_hoard().reading.links("hub/t600.md", caller=OWNER).backlinks == ["hub/index.md"]
