"""PDF to pages of text with PDFium (``pypdfium2``): Chrome's PDF engine, fuzzed for years
against hostile files, about 3x faster than pure-Python ``pypdf`` on the bench's pages. The
page count is checked before any page is read; a content stream that decompresses to
gigabytes runs into the worker's address-space limit. Runs in the extraction worker."""

from __future__ import annotations

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]


class PdfProblem(Exception):
    def __init__(self, problem: str, detail: str) -> None:
        super().__init__(detail)
        self.problem = problem
        self.detail = detail


def pdf_pages(data: bytes, max_pages: int, max_chars: int) -> tuple[list[str], bool]:
    """The text of each page and whether the text stopped at ``max_chars``."""
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise PdfProblem("encrypted", "the PDF is password-protected") from exc
        raise PdfProblem("malformed", f"not a readable PDF ({exc})") from exc
    try:
        count = len(doc)
        if count > max_pages:
            raise PdfProblem("too_many_pages", f"{count} pages; the limit is {max_pages}")
        pages: list[str] = []
        total = 0
        for i in range(count):
            text = _page_text(doc, i)
            total += len(text)
            if total > max_chars:
                pages.append(text[: max(0, len(text) - (total - max_chars))])
                return pages, True
            pages.append(text)
        return pages, False
    finally:
        doc.close()


def _page_text(doc: pdfium.PdfDocument, index: int) -> str:
    """One page's text; a page PDFium cannot load reads as empty (the others still count)."""
    try:
        page = doc[index]
    except pdfium.PdfiumError:
        return ""
    try:
        textpage = page.get_textpage()
        try:
            text: str = textpage.get_text_bounded()
        finally:
            textpage.close()
    finally:
        page.close()
    return text.replace("\r\n", "\n").replace("\x00", " ")
