"""Attachments' text read in the extraction pool: real PDFs, Word files, texts and HTML give
their pages; hostile files are each bounded and reported, never harming the process that
asked (the pool runs them in child processes with CPU, memory and wall-clock limits)."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.adapters.attachments.pool import ExtractorPool
from hoard.core.attachments import AttachmentLimits, Extracted
from tests.adapters.attachments import hostile
from tests.attachment_files import docx_with_pages, pdf_with_pages


@pytest.fixture(scope="module")
def pool() -> Iterator[ExtractorPool]:
    p = ExtractorPool(AttachmentLimits(time_s=10), workers=2)
    yield p
    p.close()


def extract(pool: ExtractorPool, kind: str, data: bytes, **kw: str) -> Extracted:
    return pool.extract(kind, data, hashlib.sha256(data).hexdigest(), **kw)  # type: ignore[arg-type]


def test_a_pdf_gives_its_pages_in_order(pool):
    found = extract(pool, "pdf", pdf_with_pages("lions roar", "the quokka smiles", "the end"))

    assert found.problem is None
    assert len(found.pages) == 3
    assert "quokka" in found.pages[1] and "quokka" not in found.pages[0]


def test_a_word_file_is_cut_into_pages_at_its_page_breaks(pool):
    found = extract(pool, "docx", docx_with_pages("first page\nmore", "the numbat digs"))

    assert found.problem is None
    assert [("numbat" in p) for p in found.pages] == [False, True]
    assert "first page\nmore" in found.pages[0]


def test_text_csv_and_html_give_their_text(pool):
    csv = extract(pool, "text", b"name,animal\nann,wombat\n")
    html = extract(
        pool,
        "html",
        b"<html><head><title>t</title><script>var secret=1</script></head>"
        b"<body><p>Caf&eacute; &amp; bilby</p><style>p{}</style></body></html>",
    )

    assert csv.pages == ("name,animal\nann,wombat\n",)
    assert html.pages == ("Café & bilby",)


def test_a_long_text_is_read_in_parts(pool):
    line = "word " * 19 + "\n"
    found = extract(pool, "text", (line * 5000).encode())

    assert len(found.pages) > 1
    assert "".join(found.pages) == line * 5000


def test_a_file_renamed_to_pdf_that_is_not_one_is_malformed(pool):
    found = extract(pool, "pdf", b"PK\x03\x04 this is a zip, not a PDF")

    assert found.problem == "malformed"


def test_an_encrypted_pdf_is_reported_as_encrypted(pool):
    found = extract(pool, "pdf", pdf_with_pages("secret plans", password="pw"))

    assert found.problem == "encrypted" and found.pages == ()


def test_a_pdf_of_100000_pages_is_refused_before_any_page_is_read(pool):
    t0 = time.monotonic()
    found = extract(pool, "pdf", hostile.many_pages_pdf(100_000))

    assert found.problem == "too_many_pages"
    assert "100000" in found.detail
    assert time.monotonic() - t0 < 10


def test_a_pdf_whose_page_tree_loops_is_bounded(pool):
    found = extract(pool, "pdf", hostile.cyclic_pdf())

    # PDFium cuts the loop: either the pages it could reach, or a reported problem.
    assert found.problem in (None, "malformed")
    assert len(found.pages) <= 3


def test_a_pdf_whose_content_inflates_to_gigabytes_stops_at_the_memory_limit(pool):
    t0 = time.monotonic()
    found = extract(pool, "pdf", hostile.inflating_pdf(4.0))

    assert found.problem in ("memory", "time")
    assert time.monotonic() - t0 < 15
    assert extract(pool, "text", b"still working").pages == ("still working",)


def test_a_word_zip_bomb_stops_at_the_inflated_size_ceiling(pool):
    found = extract(pool, "docx", hostile.docx_zip_bomb(2.0))

    assert found.problem == "too_large"
    assert "decompresses" in found.detail


def test_an_xml_entity_bomb_is_refused_unexpanded(pool):
    t0 = time.monotonic()
    found = extract(pool, "docx", hostile.entity_bomb_docx())

    assert found.problem == "malformed"
    assert "Forbidden" in found.detail
    assert time.monotonic() - t0 < 5


def test_an_image_of_30000_by_30000_pixels_is_refused_before_ocr(pool, tmp_path: Path):
    ocr = tmp_path / "tesseract"
    ocr.write_text("#!/bin/sh\necho read by ocr\n")
    ocr.chmod(0o755)

    huge = extract(pool, "image", hostile.huge_png(30_000, 30_000), tesseract=str(ocr))
    small = extract(pool, "image", hostile.huge_png(10, 10), tesseract=str(ocr))

    assert huge.problem == "too_many_pages" and "30000 x 30000" in huge.detail
    assert small.pages == ("read by ocr\n",)


def test_a_worker_past_its_wall_clock_is_killed_and_replaced():
    p = ExtractorPool(AttachmentLimits(time_s=1), workers=1)
    try:
        t0 = time.monotonic()
        slow = extract(p, "html", b"<p>word</p>" * 3_000_000)
        assert time.monotonic() - t0 < 3
        first = p.child_pids()
        after = extract(p, "text", b"next file")
        assert slow.problem == "time"
        assert first == []  # the worker that ran out of time was killed
        assert after.pages == ("next file",)
    finally:
        p.close()


def test_the_pool_runs_in_child_processes_and_leaves_none_behind():
    p = ExtractorPool(AttachmentLimits(), workers=1)
    extract(p, "text", b"hello")
    pids = p.child_pids()
    assert pids and os.getpid() not in pids
    p.close()
    assert p.child_pids() == []
