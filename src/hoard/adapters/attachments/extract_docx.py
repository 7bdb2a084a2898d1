"""Word (.docx) to pages of text: a zip read with ceilings on its entries and on what they
decompress to (a zip bomb stops at the ceiling), and the document's XML parsed by
``defusedxml`` (no DTDs, no entities: an entity bomb is refused before it expands). Pages are
cut where the document has an explicit page break (Word's own layout is not computed).
Runs in the extraction worker."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import IO
from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
DOCUMENT = "word/document.xml"
MAX_ENTRIES = 10_000
MAX_XML_BYTES = 128 * 1024 * 1024
"""What ``word/document.xml`` may decompress to; past it the file is a zip bomb to us."""


class DocxProblem(Exception):
    def __init__(self, problem: str, detail: str) -> None:
        super().__init__(detail)
        self.problem = problem
        self.detail = detail


class _Capped(io.RawIOBase):
    """A zip member read through a ceiling on its decompressed size."""

    def __init__(self, member: IO[bytes], cap: int) -> None:
        self.member = member
        self.cap = cap
        self.read_so_far = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.member.read(len(buffer))
        self.read_so_far += len(data)
        if self.read_so_far > self.cap:
            raise DocxProblem(
                "too_large", f"the document decompresses to more than {self.cap} bytes"
            )
        buffer[: len(data)] = data
        return len(data)


def docx_pages(data: bytes, max_pages: int) -> list[str]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise DocxProblem("malformed", f"not a Word file (not a zip: {exc})") from exc
    with archive:
        names = archive.namelist()
        if len(names) > MAX_ENTRIES:
            raise DocxProblem("malformed", f"the zip holds {len(names)} entries")
        if DOCUMENT not in names:
            if "EncryptedPackage" in names:
                raise DocxProblem("encrypted", "the document is password-protected")
            raise DocxProblem("malformed", f"not a Word file (no {DOCUMENT})")
        try:
            with archive.open(DOCUMENT) as member:
                return _pages(io.BufferedReader(_Capped(member, MAX_XML_BYTES)), max_pages)
        except DefusedXmlException as exc:
            raise DocxProblem("malformed", f"refused XML: {type(exc).__name__}") from exc
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
            raise DocxProblem("malformed", f"unreadable zip member: {exc}") from exc
        except (SyntaxError, EOFError, ValueError, OSError) as exc:  # ParseError is a SyntaxError
            raise DocxProblem("malformed", f"broken XML: {exc}") from exc


def _pages(stream: io.BufferedReader, max_pages: int) -> list[str]:
    pages: list[list[str]] = [[]]
    for text, page_break in _runs(stream):
        if page_break:
            if len(pages) >= max_pages:
                raise DocxProblem("too_many_pages", f"more than {max_pages} pages")
            pages.append([])
        else:
            pages[-1].append(text)
    return ["".join(p).strip("\n") for p in pages]


def _runs(stream: io.BufferedReader) -> Iterator[tuple[str, bool]]:
    """``(text, False)`` for text and ``("", True)`` at each explicit page break, in
    document order; elements are freed as soon as they are read."""
    for event, el in iterparse(stream, events=("start", "end"), forbid_dtd=True):
        if event == "start":
            continue
        tag = el.tag
        if tag == W + "t":
            yield el.text or "", False
        elif tag == W + "tab":
            yield "\t", False
        elif tag in (W + "br", W + "cr"):
            if el.get(W + "type") == "page":
                yield "", True
            else:
                yield "\n", False
        elif tag == W + "p":
            yield "\n", False
            _free(el)
        elif tag == W + "tbl":
            _free(el)


def _free(el: Element) -> None:
    el.clear()
