"""Reading a note the way Obsidian shows it: headings carry ids that links land on, embeds
bring in the other note's text (bounded, cycles as links, protected notes never), images
from the vault are shown (served only to the signed-in owner, SVG never run), task boxes
tick exactly one character on disk, tags link to their pages, one ``<h1>`` a page and each
link listed once, by title."""

from __future__ import annotations

import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import note_text as note
from tests.helpers import write_file

from .support import SECRET_WORD, Site, sign_in

FILLER = "\n\n".join(
    f"Paragraph {i} of filler text that pushes the heading down." for i in range(80)
)
EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="alert(1)">'
    '<script>alert("svg ran")</script><rect width="40" height="20" fill="teal"/></svg>'
)


def _png(width: int = 48, height: int = 24) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xc0\x40\x20" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def reading(site: Site) -> Path:
    """The notes these tests read, in a folder of their own."""
    v = site.vault
    write_file(v, "reading/long.md", note("Long", f"{FILLER}\n\n## Far Down Heading\n\nThe end."))
    write_file(v, "reading/linker.md", note("Linker", "See [[long#Far Down Heading]]."))
    write_file(
        v,
        "reading/source.md",
        note("Source", "Before.\n\n## Kept Part\n\nTransclude me please.\n\n## Next\n\nNot this."),
    )
    write_file(v, "reading/loop-a.md", note("Loop A", "Text of A.\n\n![[loop-b]]"))
    write_file(v, "reading/loop-b.md", note("Loop B", "Text of B.\n\n![[loop-a]]"))
    write_file(v, "reading/attachments/dot.png", _png())
    write_file(v, "reading/attachments/evil.svg", EVIL_SVG)
    write_file(v, "secret/pic.png", _png())
    write_file(
        v,
        "reading/showcase.md",
        note(
            "Showcase",
            "# Reading, as Obsidian shows it\n\nLinks to [[long]], [[long]] and [[source]].\n\n"
            "![[source#Kept Part]]\n\n![[loop-a]]\n\n![[plan]]\n\n"
            "![[dot.png]]\n\n![a dot](attachments/dot.png)\n\n![[evil.svg]]\n\n"
            "![gone](attachments/missing.png)\n\n## Tasks\n\n- [ ] first task\n- [ ] second task\n",
            tags=["reading-tag", "obsidian"],
        ),
    )
    site.hoard.keeper.ensure_fresh()
    return v


def _in_viewport(page: Any, selector: str) -> bool:
    return bool(
        page.eval_on_selector(
            selector,
            "e => { const r = e.getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight; }",
        )
    )


def test_a_heading_link_scrolls_to_the_heading(owner_page: Any, site: Site, reading: Path) -> None:
    page = owner_page
    page.goto(f"{site.url}/n/reading/linker.md")
    page.click("article.rendered a.wikilink")
    page.wait_for_url("**/n/reading/long.md#far-down-heading")
    page.wait_for_function("() => window.scrollY > 0")
    assert _in_viewport(page, "h2#far-down-heading")

    page.goto(f"{site.url}/browse")
    page.goto(f"{site.url}/n/reading/long.md#far-down-heading")
    page.wait_for_function("() => window.scrollY > 0")
    assert _in_viewport(page, "h2#far-down-heading")


def test_an_embed_shows_the_section_a_cycle_ends_and_a_protected_note_stays_out(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    page.goto(f"{site.url}/n/reading/showcase.md")
    embeds = page.locator("article.rendered div.embed")
    first = embeds.first.inner_text()
    assert "Transclude me please." in first
    assert "Before." not in first and "Not this." not in first
    text = page.inner_text("article.rendered")
    assert "Text of A." in text and "Text of B." in text  # a, then b inside it
    assert text.count("Text of A.") == 1  # b's embed of a is a link, not a loop
    assert page.locator("div.embed div.embed div.embed").count() == 0
    assert SECRET_WORD not in page.content()
    assert "(not shown)" in text


def test_an_image_from_the_vault_renders_and_a_missing_one_shows_its_alt_text(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    page.goto(f"{site.url}/n/reading/showcase.md")
    images = page.locator("article.rendered img.vault-image[src$='dot.png']")
    assert images.count() == 2
    for i in range(2):
        images.nth(i).scroll_into_view_if_needed()
        page.wait_for_function(
            "e => e.complete && e.naturalWidth > 0", arg=images.nth(i).element_handle()
        )
    assert page.locator(".missing-image", has_text="gone").count() == 1


def test_an_svg_with_a_script_never_runs_not_even_opened_directly(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{site.url}/n/reading/showcase.md")
    svg = page.locator("article.rendered img.vault-image[src$='evil.svg']")
    svg.scroll_into_view_if_needed()
    page.wait_for_function("e => e.complete && e.naturalWidth > 0", arg=svg.element_handle())
    url = f"{site.url}/file/reading/attachments/evil.svg"
    answer = page.request.get(url)
    assert answer.headers["content-type"] == "image/svg+xml"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["content-disposition"] == "attachment"
    assert "sandbox" in answer.headers["content-security-policy"]
    with page.expect_download() as download:  # an attachment: never shown as a document
        try:
            page.goto(url)
        except Exception as exc:  # Playwright's goto reports the download as an error
            assert "Download is starting" in str(exc)
    assert download.value.suggested_filename
    page.wait_for_timeout(300)
    assert dialogs == []


def test_a_path_outside_the_vault_a_dot_file_or_a_protected_image_is_refused(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    for asked in (
        "/file/%2E%2E/%2E%2E/%2E%2E/etc/passwd.png",
        "/file/reading/%2E%2E/%2E%2E/tokens.png",
        "/file/.git/x.png",
        "/file/secret/pic.png",
        "/file/reading/long.md",
    ):
        answer = page.request.get(site.url + asked, max_redirects=0)
        assert answer.status in (400, 403, 404), asked
        assert b"PNG" not in answer.body()
    assert page.request.get(f"{site.url}/file/reading/attachments/dot.png").ok


def test_a_signed_out_visitor_gets_no_vault_image(browser: Any, site: Site, reading: Path) -> None:
    context = browser.new_context()
    try:
        answer = context.request.get(
            f"{site.url}/file/reading/attachments/dot.png", max_redirects=0
        )
        assert answer.status in (303, 401)
        assert b"PNG" not in answer.body()
    finally:
        context.close()


def _wait_for_bytes(path: Path, before: bytes) -> bytes:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        now = path.read_bytes()
        if now != before:
            return now
        time.sleep(0.05)
    return path.read_bytes()


def test_ticking_a_task_writes_exactly_that_one_character_to_disk(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    disk = reading / "reading/showcase.md"
    before = disk.read_bytes()
    page.goto(f"{site.url}/n/reading/showcase.md")
    loaded = page.get_attribute("#note-body", "data-revision")
    page.locator("li.task-list-item", has_text="second task").locator("input").check()
    after = _wait_for_bytes(disk, before)

    assert len(after) == len(before)
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    assert len(changed) == 1
    assert before[changed[0] - 1 : changed[0] + 2] == b"[ ]"
    assert after[changed[0]] == ord("x")
    assert before.index(b"- [ ] second task") + 3 == changed[0]

    # A page still holding the revision it loaded (the note changed since) is refused,
    # visibly, and nothing is written.
    page.wait_for_function(
        f"() => document.querySelector('#note-body').dataset.revision !== '{loaded}'"
    )
    page.eval_on_selector("#note-body", "(e, r) => e.setAttribute('data-revision', r)", loaded)
    # click, not check: the refusal may put the box back before a check could see it ticked
    page.locator("li.task-list-item", has_text="first task").locator("input").click()
    alert = page.wait_for_selector("#task-outcome [role=alert]")
    assert alert is not None and "Not saved" in alert.inner_text()
    assert disk.read_bytes() == after
    assert (
        not page.locator("li.task-list-item", has_text="first task").locator("input").is_checked()
    )


def test_tags_link_to_their_pages_one_h1_and_links_listed_once_by_title(
    owner_page: Any, site: Site, reading: Path
) -> None:
    page = owner_page
    page.goto(f"{site.url}/n/reading/showcase.md")
    assert page.locator("h1").count() == 1
    assert page.inner_text("h1") == "Reading, as Obsidian shows it"
    tag = page.locator("table.props a.tag", has_text="reading-tag")
    assert tag.get_attribute("href") == "/tags/reading-tag"
    links = page.locator("aside section", has_text="Links").locator("li")
    names = [links.nth(i).inner_text() for i in range(links.count())]
    assert names.count("Long") == 1 and "Source" in names
    page.goto(f"{site.url}/n/reading/long.md")
    back = page.locator("aside section", has_text="Backlinks").locator("li")
    titles = [back.nth(i).inner_text() for i in range(back.count())]
    assert titles.count("Showcase") == 1 and "Linker" in titles


def test_screenshots_of_a_note_with_an_embed_an_image_and_tasks(
    browser: Any, site: Site, reading: Path, screenshots: Path
) -> None:
    for width, height in ((1366, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            sign_in(page, site)
            page.goto(f"{site.url}/n/reading/showcase.md")
            page.wait_for_function(
                "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)"
            )
            page.screenshot(path=str(screenshots / f"note-reading-{width}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        finally:
            context.close()


def test_a_pdf_file_over_the_image_cap_opens_and_other_attachments_download_sandboxed(
    owner_page: Any, site: Site, reading: Path
) -> None:
    big = b"%PDF-1.4\n" + b"0" * (30 * 1024 * 1024)  # over 20 MiB, under [attachments] max_mb
    write_file(site.vault, "reading/attachments/big.pdf", big)
    write_file(site.vault, "reading/attachments/page.html", b"<script>alert(1)</script>")

    pdf = owner_page.request.get(f"{site.url}/file/reading/attachments/big.pdf")
    html = owner_page.request.get(f"{site.url}/file/reading/attachments/page.html")

    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
    assert pdf.body() == big
    assert html.ok and html.headers["content-disposition"] == "attachment"
    assert html.headers["content-type"] == "application/octet-stream"
    assert "sandbox" in html.headers["content-security-policy"]
