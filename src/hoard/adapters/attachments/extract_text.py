"""Plain text, CSV and HTML to pages of text. Runs in the extraction worker (a child
process); pure functions of the file's bytes."""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

PART_CHARS = 32 * 1024
"""A long text file is indexed and read in parts of about this many characters (cut at a
line end): a search hit names its part like a PDF's page."""

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I)
_SKIPPED = frozenset({"script", "style", "template", "noscript", "svg", "math", "head"})
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "td",
        "th",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "article",
        "pre",
        "blockquote",
        "table",
        "ul",
        "ol",
        "dt",
        "dd",
        "hr",
        "title",
    }
)


def decoded(data: bytes, declared: str | None = None) -> str:
    """The bytes as text: a BOM wins, then a declared charset Python knows, then UTF-8,
    then Windows-1252 (which decodes anything)."""
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(name, errors="replace")
    if declared:
        try:
            return data.decode(codecs.lookup(declared).name, errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parts_of(text: str, part_chars: int = PART_CHARS) -> list[str]:
    """``text`` cut into parts of at most about ``part_chars`` characters, at line ends
    where there are any."""
    text = text.replace("\x00", " ")
    out: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + part_chars)
        if end < len(text):
            nl = text.rfind("\n", start + part_chars // 2, end)
            end = nl + 1 if nl > 0 else end
        out.append(text[start:end])
        start = end
    return out or [""]


def text_pages(data: bytes) -> list[str]:
    return parts_of(decoded(data))


class _TextOf(HTMLParser):
    """The visible text of an HTML page: no scripts, styles or markup; block elements on
    lines of their own. Entities are expanded from HTML's fixed table only (no DTD)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipping += 1
        elif tag in _BLOCKS:
            self.chunks.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.chunks.append(data)


def html_pages(data: bytes) -> list[str]:
    found = _CHARSET.search(data[:4096])
    parser = _TextOf()
    parser.feed(decoded(data, found.group(1).decode("ascii") if found else None))
    parser.close()
    text = re.sub(r"[ \t\r\f\v]+", " ", "".join(parser.chunks))
    return parts_of(re.sub(r"\n\s*\n+", "\n\n", text).strip())
