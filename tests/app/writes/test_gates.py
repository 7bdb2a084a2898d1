"""Every gate of vault_write (and the archive/confirm gates that share them): each refusal
carries its SPEC error code and details, leaves the file byte- and mtime-identical, and is
recorded in the ledger as a ``refused`` event."""

from __future__ import annotations

import os
import stat
import unicodedata

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
READER = Caller("reader", frozenset({"read"}), "direct")
MAINTAINER = Caller("maintainer", frozenset({"read", "write", "maintenance"}), "direct")
PROPOSER_NO_CONFIRM = Caller("drafter", frozenset({"read", "write"}), "propose")

HEAD = {
    "title": "title: Lamp\n",
    "type": "type: note\n",
    "status": "status: active\n",
    "tags": "tags: [alpha, beta]\n",
    "updated": "updated: 2026-03-01\n",
}


def doc(body: str = "Body.\n", drop: str = "", **lines: str) -> str:
    """A note from HEAD with one field dropped and/or some field lines replaced."""
    fields = {k: v for k, v in HEAD.items() if k != drop}
    fields.update(lines)
    return "---\n" + "".join(fields.values()) + "---\n" + body


@pytest.fixture
def lamp(put, note_text) -> tuple[str, bytes]:
    """An existing, valid note: (path, its bytes)."""
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    return "tech/lamp.md", raw


CONTRACT_CASES = [
    ("missing-title", doc(drop="title"), "title", "required"),
    ("missing-type", doc(drop="type"), "type", "required"),
    ("missing-status", doc(drop="status"), "status", "required"),
    ("missing-tags", doc(drop="tags"), "tags", "required"),
    ("missing-updated", doc(drop="updated"), "updated", "required"),
    ("empty-title", doc(title='title: ""\n'), "title", "non_empty_string"),
    ("title-not-a-string", doc(title="title: [a, b]\n"), "title", "non_empty_string"),
    ("tags-not-a-list", doc(tags="tags: alpha\n"), "tags", "tags_type"),
    ("one-tag", doc(tags="tags: [alpha]\n"), "tags", "tags_count"),
    ("six-tags", doc(tags="tags: [a, b, c, d, e, f]\n"), "tags", "tags_count"),
    ("uppercase-tag", doc(tags="tags: [Alpha, beta]\n"), "tags", "tag_format"),
    ("snake-case-tag", doc(tags="tags: [alpha_one, beta]\n"), "tags", "tag_format"),
    ("duplicate-tags", doc(tags="tags: [alpha, alpha]\n"), "tags", "tags_distinct"),
    ("impossible-date", doc(updated="updated: 2026-02-30\n"), "updated", "date_invalid"),
    ("slashed-date", doc(updated="updated: 2026/03/01\n"), "updated", "date_format"),
    ("words-date", doc(updated="updated: March 1st\n"), "updated", "date_format"),
    ("no-frontmatter", "# Lamp\n\nNo frontmatter at all.\n", "frontmatter", "frontmatter_missing"),
    ("duplicate-key", doc(extra="title: Again\n"), "frontmatter", "duplicate_key"),
    ("no-final-newline", doc(body="Body."), "file", "final_newline"),
    ("trailing-blank-lines", doc(body="Body.\n\n\n"), "file", "final_newline"),
    ("byte-order-mark", "\ufeff" + doc(), "file", "bom"),
    ("yaml-anchor", doc(extra="x: &a 1\ny: 2\n"), "frontmatter", "yaml_anchor"),
    ("yaml-alias", doc(extra="x: 1\ny: *a\n"), "frontmatter", None),
    ("merge-key", doc(extra="<<: {x: 1}\n"), "frontmatter", "merge_key"),
    ("custom-tag", doc(extra="x: !!python/object:os.system 1\n"), "frontmatter", "custom_tag"),
    ("yaml-syntax", doc(extra="x: [unclosed\n"), "frontmatter", "yaml_syntax"),
    (
        "huge-frontmatter",
        doc(extra="filler: " + "x" * (17 * 1024) + "\n"),
        "frontmatter",
        "frontmatter_size",
    ),
]


@pytest.mark.parametrize(
    ("content", "field", "rule"),
    [c[1:] for c in CONTRACT_CASES],
    ids=[c[0] for c in CONTRACT_CASES],
)
def test_a_write_breaking_a_contract_rule_is_a_contract_violation_and_changes_nothing(
    hoard: Hoard, lamp, refuse, content: str, field: str, rule: str | None
) -> None:
    path, raw = lamp
    exc = refuse(
        hoard,
        "contract_violation",
        path,
        hoard.writes.write,
        path,
        content,
        sha(raw),
    )

    violations = exc.to_object()["violations"]
    assert violations, "a contract_violation must list its violations"
    for v in violations:
        assert set(v) == {"field", "rule", "message"}
        assert v["message"]
    if rule is None:  # an alias: refused as an alias, or as the unknown anchor it names
        assert {v["rule"] for v in violations} & {"yaml_alias", "yaml_syntax"}
    else:
        assert {"field": field, "rule": rule} in [
            {"field": v["field"], "rule": v["rule"]} for v in violations
        ]


def test_a_create_breaking_the_contract_leaves_no_file(hoard: Hoard, refuse, vault) -> None:
    exc = refuse(
        hoard,
        "contract_violation",
        "tech/new.md",
        hoard.writes.write,
        "tech/new.md",
        doc("x"),
    )

    assert {"field": "file", "rule": "final_newline"} in [
        {"field": v["field"], "rule": v["rule"]} for v in exc.to_object()["violations"]
    ]
    assert not (vault / "tech").exists() or not (vault / "tech" / "new.md").exists()


def test_a_contract_violation_lists_every_broken_rule_at_once(hoard: Hoard, lamp, refuse) -> None:
    path, raw = lamp
    bad = doc(drop="title", tags="tags: [Alpha]\n", updated="updated: 2026-13-01\n")

    exc = refuse(hoard, "contract_violation", path, hoard.writes.write, path, bad, sha(raw))

    rules = {(v["field"], v["rule"]) for v in exc.to_object()["violations"]}
    assert {
        ("title", "required"),
        ("tags", "tags_count"),
        ("tags", "tag_format"),
        ("updated", "date_invalid"),
    } <= rules


def test_creating_over_an_existing_note_without_expected_revision_is_exists(
    hoard: Hoard, lamp, refuse, note_text
) -> None:
    path, raw = lamp

    exc = refuse(hoard, "exists", path, hoard.writes.write, path, note_text("Other", "New."))

    assert exc.to_object()["current_revision"] == sha(raw)


def test_a_wrong_expected_revision_is_a_conflict_carrying_the_current_revision(
    hoard: Hoard, lamp, refuse, note_text
) -> None:
    path, raw = lamp

    exc = refuse(
        hoard,
        "conflict",
        path,
        hoard.writes.write,
        path,
        note_text("Lamp", "v2"),
        "0" * 64,
    )

    assert exc.to_object()["current_revision"] == sha(raw)


def test_an_expected_revision_for_a_missing_note_is_a_conflict(
    hoard: Hoard, refuse, note_text, vault
) -> None:
    exc = refuse(
        hoard,
        "conflict",
        "tech/ghost.md",
        hoard.writes.write,
        "tech/ghost.md",
        note_text("Ghost"),
        "a" * 64,
    )

    assert exc.to_object()["current_revision"] is None
    assert not (vault / "tech" / "ghost.md").exists()


def test_a_valid_create_and_a_valid_overwrite_are_written(hoard: Hoard, lamp, note_text) -> None:
    path, raw = lamp
    created = hoard.writes.write("tech/fresh.md", note_text("Fresh"), caller=WRITER)
    new = note_text("Lamp", "The desk lamp, now brighter.")
    over = hoard.writes.write(path, new, sha(raw), caller=WRITER)

    assert (created.status, created.previous_revision) == ("written", None)
    assert (over.status, over.previous_revision, over.revision) == (
        "written",
        sha(raw),
        sha(new.encode()),
    )
    assert (hoard.vault.root / path).read_bytes() == new.encode()


# -- the Related block -------------------------------------------------------------------------

RELATED = "Related:\n- [[lamp]]\n- [[desk]]\n"


@pytest.fixture
def with_related(put, note_text) -> tuple[str, bytes]:
    raw = (note_text("Shelf", "A shelf.\n") + "\n" + RELATED).encode()
    put("tech/shelf.md", raw)
    return "tech/shelf.md", raw


@pytest.mark.parametrize(
    "new_tail",
    [
        "Related:\n- [[lamp]]\n",  # an entry dropped
        "Related:\n- [[lamp]]\n- [[desk]]\n- [[chair]]\n",  # an entry added
        "",  # the block removed
        "Related:\n- [[desk]]\n- [[lamp]]\n",  # reordered
    ],
    ids=["entry-dropped", "entry-added", "block-removed", "reordered"],
)
def test_changing_the_related_block_without_maintenance_is_refused(
    hoard: Hoard, with_related, refuse, note_text, new_tail: str
) -> None:
    path, raw = with_related
    new = note_text("Shelf", "A shelf, edited.\n") + ("\n" + new_tail if new_tail else "")

    exc = refuse(
        hoard,
        "contract_violation",
        path,
        hoard.writes.write,
        path,
        new,
        sha(raw),
        caller=WRITER,
    )

    assert "related_block" in {v["rule"] for v in exc.to_object()["violations"]}


def test_editing_above_an_unchanged_related_block_is_allowed(
    hoard: Hoard, with_related, note_text
) -> None:
    path, raw = with_related
    new = note_text("Shelf", "A shelf, edited.\n") + "\n" + RELATED

    result = hoard.writes.write(path, new, sha(raw), caller=WRITER)

    assert result.status == "written"
    assert (hoard.vault.root / path).read_bytes().endswith(RELATED.encode())


def test_a_caller_with_maintenance_may_regenerate_the_related_block(
    hoard: Hoard, with_related, note_text
) -> None:
    path, raw = with_related
    new = note_text("Shelf", "A shelf.\n") + "\nRelated:\n- [[chair]]\n"

    result = hoard.writes.write(path, new, sha(raw), caller=MAINTAINER)

    assert result.status == "written"
    assert (hoard.vault.root / path).read_bytes() == new.encode()


# -- private notes -----------------------------------------------------------------------------


def test_a_private_note_can_be_created_without_frontmatter(hoard: Hoard, vault) -> None:
    text = "# Diary\n\nNo frontmatter here, and that is fine.\n"

    result = hoard.writes.write("personal-notes/diary.md", text, caller=WRITER)

    assert result.status == "written"
    assert (vault / "personal-notes" / "diary.md").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("who", [WRITER, MAINTAINER, OWNER], ids=["writer", "maintainer", "owner"])
def test_an_existing_private_note_is_never_overwritten(
    hoard: Hoard, put, refuse, who: Caller
) -> None:
    raw = b"# Diary\n\nDear diary.\n"
    put("personal-notes/diary.md", raw)

    refuse(
        hoard,
        "private_note",
        "personal-notes/diary.md",
        hoard.writes.write,
        "personal-notes/diary.md",
        "# Diary\n\nRewritten.\n",
        sha(raw),
        caller=who,
    )


def test_an_existing_private_note_is_never_archived(hoard: Hoard, put, refuse) -> None:
    raw = b"# Diary\n\nDear diary.\n"
    put("personal-notes/deep/diary.md", raw)

    refuse(
        hoard,
        "private_note",
        "personal-notes/deep/diary.md",
        hoard.writes.retirement.archive,
        "personal-notes/deep/diary.md",
        "archived",
        sha(raw),
    )
    assert (
        hoard.writes.retirement.history("personal-notes/deep/diary.md", caller=OWNER).revisions
        == []
    )


# -- paths -------------------------------------------------------------------------------------

HOSTILE = [
    "../escape.md",
    "tech/../../escape.md",
    "/tmp/escape.md",
    "C:/escape.md",
    ".git/escape.md",
    "tech/.hidden.md",
    "tech\\escape.md",
    "tech/escape.txt",
    "tech/esc\x00ape.md",
    "tech/esc\x07ape.md",
    "tech//escape.md",
    "",
    " tech/escape.md",
    "link/escape.md",  # a symlinked folder pointing outside the vault
    "tech/sneaky.md",  # a symlink note pointing outside the vault
]


@pytest.mark.parametrize("path", HOSTILE, ids=[repr(p) for p in HOSTILE])
def test_a_hostile_path_is_rejected_and_nothing_is_written_anywhere(
    hoard: Hoard, vault, tmp_path, note_text, path: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "target.md"
    target.write_text(note_text("Target"), encoding="utf-8")
    (vault / "link").symlink_to(outside, target_is_directory=True)
    (vault / "tech").mkdir()
    (vault / "tech" / "sneaky.md").symlink_to(target)
    before = {
        p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "state" not in p.parts
    }
    target_rev = sha(target.read_bytes())

    with pytest.raises(Exception) as info:
        hoard.writes.write(path, note_text("Escape"), caller=OWNER)
    assert getattr(info.value, "code", None) == "path_rejected", info.value
    # Overwriting what a symlink points at: nothing is there as far as the vault goes.
    with pytest.raises(Exception) as info:
        hoard.writes.write(path, note_text("Escape"), target_rev, caller=OWNER)
    assert getattr(info.value, "code", None) in ("path_rejected", "conflict"), info.value

    after = {
        p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "state" not in p.parts
    }
    assert after == before
    assert list(outside.iterdir()) == [target]


# -- scopes ------------------------------------------------------------------------------------


def test_a_caller_without_write_scope_is_forbidden(hoard: Hoard, lamp, refuse, note_text) -> None:
    path, raw = lamp

    exc = refuse(
        hoard,
        "forbidden",
        path,
        hoard.writes.write,
        path,
        note_text("Lamp", "v2"),
        sha(raw),
        caller=READER,
        recorded=False,  # recording is checked below, by its own test
    )

    assert exc.to_object()["scope"] == "write"


@pytest.mark.parametrize("op", ["archive", "file_note", "dry_run"])
def test_every_write_tool_needs_the_write_scope(
    hoard: Hoard, lamp, snap, note_text, op: str
) -> None:
    path, raw = lamp
    before = snap(path)
    calls = {
        "archive": lambda: hoard.writes.retirement.archive(
            path, "archived", sha(raw), caller=READER
        ),
        "file_note": lambda: hoard.writes.notes.file_note(
            path, note_text("Lamp", "v2"), None, sha(raw), caller=READER
        ),
        "dry_run": lambda: hoard.writes.write(
            path, note_text("Lamp", "v2"), sha(raw), True, caller=READER
        ),
    }

    with pytest.raises(Exception) as info:
        calls[op]()

    assert getattr(info.value, "code", None) == "forbidden"
    assert snap(path) == before
    assert snap("tech/_INDEX.md") is None


def test_confirming_or_rejecting_without_the_confirm_scope_is_forbidden(
    hoard: Hoard, lamp, snap, note_text
) -> None:
    path, raw = lamp
    proposal = hoard.writes.write(
        path, note_text("Lamp", "v2"), sha(raw), caller=PROPOSER_NO_CONFIRM
    )
    assert proposal.status == "proposed"
    before = snap(path)

    for decide in (hoard.writes.confirm, hoard.writes.reject):
        with pytest.raises(Exception) as info:
            decide(proposal.proposal_id, caller=PROPOSER_NO_CONFIRM)
        assert getattr(info.value, "code", None) == "forbidden"
        assert info.value.to_object()["scope"] == "confirm"

    assert snap(path) == before
    assert [p.proposal_id for p in hoard.writes.proposals(caller=OWNER).proposals] == [
        proposal.proposal_id
    ]


# -- size --------------------------------------------------------------------------------------


@pytest.fixture
def small_hoard(vault, put, open_hoard) -> Hoard:
    put("hoard.toml", "[limits]\nnote_max_bytes = 2048\n")
    return open_hoard()


def padded(note_text, size: int) -> str:
    base = note_text("Big", "")
    text = base + "x" * (size - len(base.encode()) - 1) + "\n"
    assert len(text.encode()) == size
    return text


def test_a_note_over_note_max_bytes_is_too_large(
    small_hoard: Hoard, put, refuse, note_text
) -> None:
    raw = note_text("Big", "small for now").encode()
    put("tech/big.md", raw)

    exc = refuse(
        small_hoard,
        "too_large",
        "tech/big.md",
        small_hoard.writes.write,
        "tech/big.md",
        padded(note_text, 2049),
        sha(raw),
    )

    obj = exc.to_object()
    assert (obj["limit"], obj["size"]) == (2048, 2049)


def test_a_note_of_exactly_note_max_bytes_is_written(small_hoard: Hoard, vault, note_text) -> None:
    text = padded(note_text, 2048)

    assert small_hoard.writes.write("tech/edge.md", text, caller=OWNER).status == "written"
    assert (vault / "tech" / "edge.md").read_bytes() == text.encode()


def test_a_too_large_create_leaves_no_file(small_hoard: Hoard, refuse, note_text, vault) -> None:
    refuse(
        small_hoard,
        "too_large",
        "tech/huge.md",
        small_hoard.writes.write,
        "tech/huge.md",
        padded(note_text, 5000),
    )
    assert not (vault / "tech" / "huge.md").exists()


# -- protected notes ---------------------------------------------------------------------------


@pytest.fixture
def guarded_hoard(put, note_text, open_hoard) -> tuple[Hoard, bytes]:
    put("hoard.toml", 'protected = ["secret/**"]\n')
    raw = note_text("Plan", "The secret plan.").encode()
    put("secret/plan.md", raw)
    return open_hoard(), raw


def test_writing_a_protected_note_without_a_grant_is_protected(
    guarded_hoard, refuse, note_text, vault
) -> None:
    hoard, raw = guarded_hoard

    refuse(
        hoard,
        "protected",
        "secret/plan.md",
        hoard.writes.write,
        "secret/plan.md",
        note_text("Plan", "Leaked."),
        sha(raw),
        caller=WRITER,
        recorded=False,  # recording is checked below, by its own test
    )
    refuse(
        hoard,
        "protected",
        "secret/new.md",
        hoard.writes.write,
        "secret/new.md",
        note_text("New"),
        caller=WRITER,
        recorded=False,
    )
    assert not (vault / "secret" / "new.md").exists()


def test_a_grant_covering_the_protected_note_lets_the_caller_write_it(
    guarded_hoard, note_text, vault
) -> None:
    hoard, raw = guarded_hoard
    hoard.ledger.add_grant("writer", "secret/**", minutes=5)
    new = note_text("Plan", "The revised plan.")

    result = hoard.writes.write("secret/plan.md", new, sha(raw), caller=WRITER)

    assert result.status == "written"
    assert (vault / "secret" / "plan.md").read_text(encoding="utf-8") == new


def test_a_grant_for_another_caller_does_not_help(guarded_hoard, snap, note_text) -> None:
    hoard, raw = guarded_hoard
    hoard.ledger.add_grant("someone-else", "secret/**", minutes=5)
    before = snap("secret/plan.md")

    with pytest.raises(Exception) as info:
        hoard.writes.write("secret/plan.md", note_text("Plan", "x"), sha(raw), caller=WRITER)

    assert getattr(info.value, "code", None) == "protected"
    assert snap("secret/plan.md") == before


# -- arguments ---------------------------------------------------------------------------------


def test_content_with_a_lone_surrogate_is_refused_as_a_bad_argument(
    hoard: Hoard, lamp, snap
) -> None:
    """JSON can carry ``\\ud800``; it cannot be encoded as UTF-8, so it is not a note."""
    path, raw = lamp
    before = snap(path)

    with pytest.raises(Exception) as info:
        hoard.writes.write(path, doc(body="Broken \ud800 text.\n"), sha(raw), caller=OWNER)

    assert getattr(info.value, "code", None) in ("invalid_argument", "contract_violation"), (
        f"{type(info.value).__name__}: {info.value}"
    )
    assert snap(path) == before


# -- every refusal is a ledger event --------------------------------------------------------------


@pytest.mark.parametrize("code", ["forbidden", "protected"])
def test_a_refusal_for_a_missing_scope_or_grant_is_recorded_as_a_refused_event(
    put, note_text, open_hoard, refuse, code: str
) -> None:
    """The write path's promise: every attempt, refusals included, is a ledger event."""
    put("hoard.toml", 'protected = ["secret/**"]\n')
    path = "tech/lamp.md" if code == "forbidden" else "secret/plan.md"
    raw = note_text("Lamp").encode()
    put(path, raw)
    hoard = open_hoard()
    who = READER if code == "forbidden" else WRITER

    refuse(
        hoard,
        code,
        path,
        hoard.writes.write,
        path,
        note_text("Lamp", "v2"),
        sha(raw),
        caller=who,
    )


@pytest.mark.parametrize("kind", ["folder", "fifo", "file-as-folder"])
def test_a_path_that_is_not_a_regular_note_file_is_path_rejected(
    hoard: Hoard, vault, note_text, kind: str
) -> None:
    (vault / "tech").mkdir()
    (vault / "tech" / "lamp.md").write_text(note_text("Lamp"), encoding="utf-8")
    (vault / "tech" / "dir.md").mkdir()
    os.mkfifo(vault / "tech" / "fifo.md")
    path = {"folder": "tech/dir.md", "fifo": "tech/fifo.md", "file-as-folder": "tech/lamp.md/x.md"}
    before = sorted(p.name for p in (vault / "tech").iterdir())

    with pytest.raises(Exception) as info:
        hoard.writes.write(path[kind], note_text("X"), caller=OWNER)

    assert getattr(info.value, "code", None) == "path_rejected"
    assert sorted(p.name for p in (vault / "tech").iterdir()) == before
    assert (vault / "tech" / "dir.md").is_dir()
    assert stat.S_ISFIFO((vault / "tech" / "fifo.md").stat().st_mode)


def test_paths_are_nfc_normalised_so_a_decomposed_spelling_names_the_same_note(
    hoard: Hoard, vault, note_text
) -> None:
    nfd = unicodedata.normalize("NFD", "tech/café.md")
    nfc = unicodedata.normalize("NFC", "tech/café.md")
    assert nfd != nfc

    first = hoard.writes.write(nfd, note_text("Café"), caller=OWNER)

    assert first.path == nfc
    assert [p.name for p in (vault / "tech").iterdir()] == [unicodedata.normalize("NFC", "café.md")]
    with pytest.raises(Exception) as info:
        hoard.writes.write(nfc, note_text("Café", "again"), caller=OWNER)
    assert getattr(info.value, "code", None) == "exists"
