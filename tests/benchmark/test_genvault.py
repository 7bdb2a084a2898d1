"""hoard.benchmark.genvault: the seeded benchmark vault generator, on real files in tmp_path."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

import pytest

import hoard.benchmark.genvault as genvault
from hoard.app.hoard import Hoard
from hoard.benchmark.genvault import GeneratedVault, generate_vault, large_note_count
from hoard.core.config import ContractConfig
from hoard.core.contract import check_contract
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter
from hoard.core.links import extract_links, link_key, note_keys
from hoard.core.policy import OWNER

SMALL = 300
BIG = 1000


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> GeneratedVault:
    return generate_vault(tmp_path_factory.mktemp("small") / "vault", SMALL)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> GeneratedVault:
    return generate_vault(tmp_path_factory.mktemp("big") / "vault", BIG, seed=7)


def notes_of(vault: GeneratedVault) -> dict[str, str]:
    return {
        p.relative_to(vault.root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(vault.root.rglob("*.md"))
    }


def test_the_same_seed_writes_a_byte_identical_tree(small: GeneratedVault, tmp_path: Path) -> None:
    again = generate_vault(tmp_path / "again", SMALL)
    assert digest(again.root) == digest(small.root)
    assert (again.bytes, again.links, again.folders) == (small.bytes, small.links, small.folders)


def test_a_different_seed_writes_a_different_tree(small: GeneratedVault, tmp_path: Path) -> None:
    other = generate_vault(tmp_path / "other", SMALL, seed=small.seed + 1)
    assert digest(other.root) != digest(small.root)


def test_the_writer_processes_write_the_same_bytes_as_the_inline_path(
    small: GeneratedVault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(genvault, "SPAWN_WRITER_FROM", 0)
    spawned = generate_vault(tmp_path / "spawned", SMALL)
    assert digest(spawned.root) == digest(small.root)


@pytest.mark.parametrize("vault_name", ["small", "big"])
def test_the_requested_note_count_is_exact(vault_name: str, request: pytest.FixtureRequest) -> None:
    vault: GeneratedVault = request.getfixturevalue(vault_name)
    files = list(vault.root.rglob("*"))
    assert vault.notes == len([p for p in files if p.is_file()]) == len(notes_of(vault))
    assert vault.notes == (SMALL if vault_name == "small" else BIG)
    assert vault.bytes == sum(p.stat().st_size for p in files if p.is_file())


def test_every_note_passes_the_default_frontmatter_contract(big: GeneratedVault) -> None:
    contract = ContractConfig()
    bad = {
        rel: [v.rule for v in check_contract(text.encode("utf-8"), contract)]
        for rel, text in notes_of(big).items()
    }
    assert {rel: rules for rel, rules in bad.items() if rules} == {}


def test_notes_carry_realistic_frontmatter_names_and_text(big: GeneratedVault) -> None:
    notes = notes_of(big)
    metas = {}
    for rel, text in notes.items():
        data = parse_yaml_block(split_frontmatter(text).yaml_text).data
        assert data is not None
        metas[rel] = data
    assert {"note", "howto", "decision", "log", "journal", "index"} <= {
        m["type"] for m in metas.values()
    }
    assert any("aliases" in m for m in metas.values())
    assert any(":" in m["title"] or "#" in m["title"] for m in metas.values())
    stems = [rel.rpartition("/")[2][:-3] for rel in notes]
    assert any(" " in s for s in stems) and any(re.fullmatch(r"[a-z0-9-]+", s) for s in stems)
    assert any(re.search("[åøæčřšžěůüöß]", text) for text in notes.values())
    assert all(unicodedata.is_normalized("NFC", text + rel) for rel, text in notes.items())
    daily = [rel for rel in notes if rel.startswith("daily/") and not rel.endswith("_INDEX.md")]
    assert daily and all(re.search(r"/\d{4}-\d{2}-\d{2}\.md$", rel) for rel in daily)
    assert any(rel.startswith("logs/") and "log" in rel for rel in notes)
    assert 2 <= max(rel.count("/") for rel in notes) <= 3  # at most top/sub/subsub/note.md


def test_every_folder_has_an_index_listing_its_notes(big: GeneratedVault) -> None:
    folders = [big.root, *(p for p in big.root.rglob("*") if p.is_dir())]
    assert len(folders) == big.folders
    for folder in folders:
        index = (folder / "_INDEX.md").read_text(encoding="utf-8")
        listed = {ln.target for ln in extract_links(index)}
        here = {p.stem for p in folder.glob("*.md") if p.name != "_INDEX.md"}
        assert listed <= here
        assert len(listed) == min(len(here), genvault.INDEX_CAP)


def test_a_vault_of_a_thousand_notes_has_a_large_note(big: GeneratedVault) -> None:
    assert big.large_notes
    for rel in big.large_notes:
        assert 150_000 <= (big.root / rel).stat().st_size <= 300_000 * 1.1
    assert large_note_count(999) == 0 < large_note_count(1000) == 1
    assert large_note_count(250_000) == 125


def test_wikilinks_mostly_resolve_and_a_few_are_broken(big: GeneratedVault) -> None:
    notes = notes_of(big)
    paths, stems = set(), set()
    for rel in notes:
        pkey, skey = note_keys(rel)
        paths.add(pkey)
        stems.add(skey)
    total = resolved = 0
    forms = {"alias": 0, "heading": 0, "embed": 0, "path": 0}
    for rel, text in notes.items():
        folder = rel.rpartition("/")[0].lower()
        for ln in extract_links(text):
            key = link_key(ln.target)
            total += 1
            hit = key in paths or f"{folder}/{key}" in paths or key.rpartition("/")[2] in stems
            resolved += hit
            forms["alias"] += ln.alias is not None
            forms["heading"] += ln.heading is not None
            forms["embed"] += ln.embed
            forms["path"] += "/" in ln.target
    assert total == big.links
    assert 0.95 <= resolved / total < 1
    assert all(forms.values()), forms
    assert any("\nRelated:\n- [[" in text for text in notes.values())


def test_link_out_degree_is_heavy_tailed(big: GeneratedVault) -> None:
    degrees = sorted(
        len(extract_links(text))
        for rel, text in notes_of(big).items()
        if not rel.endswith("_INDEX.md")
    )
    assert degrees[len(degrees) // 2] <= 5
    assert degrees[-1] >= 50


def test_progress_is_reported_at_most_a_hundred_times_ending_at_the_total(
    tmp_path: Path,
) -> None:
    calls: list[tuple[int, int]] = []
    generate_vault(tmp_path / "v", 150, progress=lambda done, total: calls.append((done, total)))
    assert 0 < len(calls) <= 100
    assert calls[-1] == (150, 150)
    assert [c[0] for c in calls] == sorted({c[0] for c in calls})


def test_a_destination_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.md").write_text("mine\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        generate_vault(tmp_path, 50)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.md"]


def test_hoard_indexes_and_searches_a_generated_vault(
    small: GeneratedVault, tmp_path: Path
) -> None:
    hoard = Hoard(small.root, tmp_path / "state")
    try:
        result = hoard.searching.search("backup", caller=OWNER)
        assert result.error is None
        assert result.results
    finally:
        hoard.close()
