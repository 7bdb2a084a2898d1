"""Real attachments for the tests, made with real libraries: PDFs with fpdf2, Word files
with python-docx (test dependencies only)."""

from __future__ import annotations

import io

import docx
from fpdf import FPDF


def pdf_with_pages(*pages: str, password: str | None = None) -> bytes:
    """A PDF with one page per text (``password``: encrypted, opened only with it)."""
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 5, text)
    if password is not None:
        pdf.set_encryption(owner_password=password + "-owner", user_password=password)
    return bytes(pdf.output())


def docx_with_pages(*pages: str) -> bytes:
    """A Word file whose texts are separated by explicit page breaks."""
    document = docx.Document()
    for i, text in enumerate(pages):
        if i:
            document.add_page_break()
        for paragraph in text.split("\n"):
            document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
