"""Attachments in the vault: found by vault_search with their page, read by vault_read as
text with the file's SHA-256 as revision, bound by claims, under the same access rules as
notes; listed with a reason when they cannot be read; a vault without any is unchanged."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import IoError, NotFound, Protected
from hoard.core.models import to_json
from hoard.core.policy import OWNER, Caller
from tests.adapters.attachments import hostile
from tests.app.search.test_rerank import Endpoint
from tests.attachment_files import docx_with_pages, pdf_with_pages

Put = Callable[[str, "str | bytes"], Path]
READER = Caller("agent", frozenset({"read"}), "propose")


@pytest.fixture
def papers(put: Put, write_note) -> None:
    write_note("tech/zoo.md", "Zoo", "The zoo keeps a wombat and a lion.")
    put("papers/survey.pdf", pdf_with_pages("Marsupials of the south.", "The quokka smiles."))
    put("papers/notes.docx", docx_with_pages("Grassland birds.", "The numbat eats termites."))
    put("papers/table.csv", "animal,count\nbilby,3\n")
    put("papers/page.html", "<html><body><h1>Echidna</h1><p>spiny anteater</p></body></html>")


def indexed(h: Hoard) -> Hoard:
    result = h.maintenance.reindex()
    assert result.attachments is not None
    return h


def test_a_pdf_and_a_word_file_are_found_by_words_on_their_second_page(papers, open_hoard):
    h = indexed(open_hoard())

    pdf = to_json(h.searching.search("quokka", caller=OWNER))["results"]
    word = to_json(h.searching.search("numbat termites", caller=OWNER))["results"]

    assert pdf[0]["path"] == "papers/survey.pdf"
    assert pdf[0]["kind"] == "attachment" and pdf[0]["page"] == 2
    assert "quokka" in pdf[0]["snippet"]
    assert pdf[0]["title"] == "survey.pdf" and pdf[0]["folder"] == "papers"
    assert word[0]["path"] == "papers/notes.docx" and word[0]["page"] == 2


def test_csv_and_html_attachments_are_found_too(papers, open_hoard):
    h = indexed(open_hoard())

    assert h.searching.search("bilby", caller=OWNER).results[0].path == "papers/table.csv"
    html = h.searching.search("spiny anteater", caller=OWNER).results[0]
    assert html.path == "papers/page.html" and html.kind == "attachment"


def test_a_note_hit_keeps_its_shape_without_kind_or_page(papers, open_hoard):
    h = indexed(open_hoard())

    hit = to_json(h.searching.search("wombat", caller=OWNER))["results"][0]

    assert hit["path"] == "tech/zoo.md"
    assert "kind" not in hit and "page" not in hit


def test_notes_and_attachments_rank_together_and_a_folder_bounds_both(papers, open_hoard, put):
    put("other/quokka.txt", "quokka quokka quokka")
    h = indexed(open_hoard())

    everywhere = {r.path for r in h.searching.search("quokka", caller=OWNER).results}
    in_papers = {
        r.path for r in h.searching.search("quokka", folder="papers", caller=OWNER).results
    }

    assert everywhere == {"papers/survey.pdf", "other/quokka.txt"}
    assert in_papers == {"papers/survey.pdf"}


def test_vault_read_of_an_attachment_gives_its_text_by_page_with_the_file_hash(
    papers, open_hoard, vault
):
    h = open_hoard()  # not indexed yet: the text is read on demand, then cached
    digest = hashlib.sha256((vault / "papers/survey.pdf").read_bytes()).hexdigest()

    whole = h.reading.read("papers/survey.pdf", caller=OWNER)
    second = h.reading.read("papers/survey.pdf", page=2, caller=OWNER)
    head = h.reading.read("papers/survey.pdf", max_bytes=20, caller=OWNER)

    assert whole.revision == second.revision == digest
    assert whole.kind == "attachment" and whole.pages == 2 and whole.frontmatter is None
    assert whole.content.startswith("--- page 1 ---\n\nMarsupials")
    assert "--- page 2 ---\n\nThe quokka smiles." in whole.content
    assert second.content == "--- page 2 ---\n\nThe quokka smiles." and second.page == 2
    assert head.truncated and head.next_offset == 20
    assert "kind" not in to_json(h.reading.read("tech/zoo.md", caller=OWNER))


def test_an_attachment_that_cannot_be_read_is_an_error_naming_the_reason(put, open_hoard):
    put("locked.pdf", pdf_with_pages("secret", password="pw"))

    with pytest.raises(IoError) as err:
        open_hoard().reading.read("locked.pdf", caller=OWNER)

    assert err.value.details["problem"] == "encrypted"


def test_a_claim_binds_to_an_attachment_and_notices_when_it_changes(papers, open_hoard, put, vault):
    h = open_hoard()
    writer = Caller("writer", frozenset({"read", "write"}), "direct")
    rec = h.honesty.claims.record("survey", "animal", "quokka", "papers/survey.pdf", caller=writer)
    assert (
        rec.source_revision
        == hashlib.sha256((vault / "papers/survey.pdf").read_bytes()).hexdigest()
    )
    assert h.honesty.claims.get("survey", "animal", caller=writer).status == "current"

    put("papers/survey.pdf", pdf_with_pages("Marsupials of the north.", "The quokka frowns."))

    assert (
        h.honesty.claims.get("survey", "animal", caller=writer).status == "abstained_stale_source"
    )


def test_protected_attachments_are_hidden_counted_and_unreadable(put, vault, open_hoard):
    (vault / "hoard.toml").write_text('protected = ["finance/**"]\n')
    put("finance/salary.pdf", pdf_with_pages("Cover", "The platypus budget."))
    h = indexed(open_hoard())

    seen = h.searching.search("platypus", caller=READER)

    assert seen.results == [] and seen.hidden_protected == 1
    assert h.searching.search("platypus", caller=OWNER).results[0].path == "finance/salary.pdf"
    with pytest.raises(Protected):
        h.reading.read("finance/salary.pdf", caller=READER)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    e = Endpoint()
    yield e
    e.close()


def test_a_private_attachment_is_never_sent_to_the_rerank_endpoint(
    put, vault, open_hoard, endpoint: Endpoint
):
    (vault / "hoard.toml").write_text(
        f'[rerank]\nenabled = true\nurl = "{endpoint.url}"\ntimeout_ms = 500\n'
    )
    put("personal-notes/diary.txt", "quokka secretword favourite")
    put("papers/public.txt", "quokka openword favourite")
    put("papers/other.txt", "quokka otherword")
    h = indexed(open_hoard())

    r = h.searching.search("quokka", rerank="on", caller=OWNER)

    assert r.reranked and len(r.results) == 3
    sent = " ".join(endpoint.texts())
    assert "openword" in sent and "secretword" not in sent


def test_hoard_index_lists_hostile_files_with_their_reasons_and_search_still_answers(
    put, write_note, open_hoard
):
    write_note("tech/ok.md", "Fine", "a healthy note about kiwis")
    put("bad/inflating.pdf", hostile.inflating_pdf(4.0))
    put("bad/pages.pdf", hostile.many_pages_pdf(100_000))
    put("bad/loop.pdf", hostile.cyclic_pdf())
    put("bad/bomb.docx", hostile.docx_zip_bomb(2.0))
    put("bad/entities.docx", hostile.entity_bomb_docx())
    put("bad/locked.pdf", pdf_with_pages("secret", password="pw"))
    put("bad/fake.pdf", b"GIF89a not a pdf at all")
    put("bad/huge.png", hostile.huge_png())  # an image: read only with tesseract there
    h = open_hoard()

    result = h.maintenance.reindex()

    assert result.attachments is not None
    reasons = {i.path: i.problem for i in result.attachments.problems}
    assert reasons["bad/inflating.pdf"] in ("memory", "time")
    assert reasons["bad/pages.pdf"] == "too_many_pages"
    assert reasons["bad/bomb.docx"] == "too_large"
    assert reasons["bad/entities.docx"] == "malformed"
    assert reasons["bad/locked.pdf"] == "encrypted"
    assert reasons["bad/fake.pdf"] == "malformed"
    assert reasons.get("bad/loop.pdf") in (None, "malformed")
    assert result.notes == 1
    found = h.searching.search("kiwis", caller=OWNER)
    assert [r.path for r in found.results] == ["tech/ok.md"] and found.error is None
    assert h.searching.search("bomb", caller=OWNER).error is None


def test_the_server_answers_while_hostile_attachments_are_being_read(
    put, write_note, vault, open_hoard, wait_until
):
    (vault / "hoard.toml").write_text("[attachments]\ntime_s = 2\n")
    write_note("tech/ok.md", "Fine", "a healthy note about kiwis")
    put("bad/slow.html", b"<p>word</p>" * 3_000_000)
    put("bad/inflating.pdf", hostile.inflating_pdf(4.0))
    put("bad/bomb.docx", hostile.docx_zip_bomb(2.0))
    h = open_hoard(watch=True)
    attachments = h.attachments
    assert attachments is not None
    wait_until(lambda: attachments.pool.child_pids(), timeout=10)

    slowest = 0.0
    while attachments.pool.child_pids() and not attachments.problems():
        t0 = time.monotonic()
        assert h.searching.search("kiwis", caller=OWNER).results[0].path == "tech/ok.md"
        assert h.reading.read("tech/ok.md", caller=OWNER).content
        slowest = max(slowest, time.monotonic() - t0)
        time.sleep(0.05)
    attachments.wait_idle(timeout=30)

    assert slowest < 1.0
    wait_until(lambda: len(attachments.problems()) == 3, timeout=30)


def test_a_file_over_the_size_limit_is_listed_as_too_large(put, vault, open_hoard):
    (vault / "hoard.toml").write_text("[attachments]\nmax_mb = 1\n")
    put("big.txt", "x" * 1_100_000)

    result = open_hoard().maintenance.reindex()

    assert result.attachments is not None
    assert [(i.path, i.problem) for i in result.attachments.problems] == [("big.txt", "too_large")]


def test_an_unchanged_file_is_not_read_again_and_a_renamed_one_keeps_its_cached_text(
    papers, open_hoard, vault
):
    h = open_hoard()
    first = h.maintenance.index_attachments()
    again = h.maintenance.index_attachments()
    (vault / "papers/survey.pdf").rename(vault / "papers/renamed.pdf")
    moved = h.maintenance.index_attachments()

    assert first is not None and again is not None and moved is not None
    assert first.extracted == 4 and again.extracted == 0
    assert (moved.added, moved.removed, moved.extracted) == (1, 1, 0)
    assert h.searching.search("quokka", caller=OWNER).results[0].path == "papers/renamed.pdf"


def test_a_vault_without_attachments_makes_no_attachment_cache(write_note, open_hoard, state_dir):
    write_note("tech/zoo.md", "Zoo", "The zoo keeps a wombat.")
    h = open_hoard()

    result = h.maintenance.reindex()
    found = h.searching.search("wombat", caller=OWNER)

    assert result.attachments is None
    assert not (state_dir / "attachments.db").exists()
    assert [r.path for r in found.results] == ["tech/zoo.md"]


def test_attachments_can_be_turned_off(papers, vault, open_hoard, state_dir):
    (vault / "hoard.toml").write_text("[attachments]\nenabled = false\n")
    h = open_hoard()

    assert h.maintenance.reindex().attachments is None
    assert h.searching.search("quokka", caller=OWNER).results == []
    with pytest.raises(NotFound):
        h.reading.read("papers/survey.pdf", caller=OWNER)


def test_a_damaged_attachment_cache_is_made_anew_by_the_next_walk(
    papers, open_hoard, state_dir, caplog
):
    indexed(open_hoard()).close()
    db = state_dir / "attachments.db"
    with db.open("r+b") as f:
        f.seek(4096)
        f.write(b"\xff" * 8192)
    h = open_hoard()

    result = h.maintenance.reindex()

    assert "making attachments.db anew" in caplog.text
    assert result.attachments is not None and result.attachments.files == 4
    assert h.searching.search("quokka", caller=OWNER).results[0].path == "papers/survey.pdf"


def test_a_rare_word_finds_its_attachment_page_when_common_words_fill_the_page_with_notes(
    put: Put, write_note, open_hoard
):
    for n in range(12):
        write_note(f"rivers/r{n}.md", f"River delta {n}", "The river meets the delta.")
    for n in range(20):
        put(f"papers/p{n}.txt", "river delta " * 40)
    put("papers/rare.pdf", pdf_with_pages("The river.", "A delta.", "An axolotl in the river."))
    h = indexed(open_hoard())

    common = h.searching.search("river delta", limit=5, caller=OWNER).results
    rare = h.searching.search("river axolotl", limit=5, caller=OWNER).results

    assert [r.kind for r in common] == [None] * 5
    assert any(r.path == "papers/rare.pdf" and r.page == 3 for r in rare)
