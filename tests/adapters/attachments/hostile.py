"""Hostile files for the attachment tests, made by hand in milliseconds: a PDF whose one
content stream inflates to gigabytes, one of 100,000 pages, one whose page tree loops, a
.docx zip bomb, an XML entity bomb, a huge image header."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

_MATCH = "11000101" + "00000"  # fixed Huffman: length 258 (code 285), distance 1 (code 0)


def _pack(bits: str) -> bytes:
    """Deflate's bit order: each byte filled from its least significant bit."""
    out = bytearray()
    for i in range(0, len(bits), 8):
        chunk = bits[i : i + 8].ljust(8, "0")
        out.append(int(chunk[::-1], 2))
    return bytes(out)


def repeat_deflate(gigabytes: float, prefix: bytes = b"\0") -> tuple[bytes, int]:
    """A zlib stream that inflates to ``prefix`` and then its last byte repeated to about
    ``gigabytes`` GB, built without compressing anything: one fixed-Huffman block of
    literals and back-references of 258 bytes at distance 1, whose bits repeat every 8
    references (13 bytes). ``(stream, inflated size)``."""
    assert prefix and max(prefix) < 144  # one 8-bit fixed code each
    k = len(prefix)
    literals = "".join(format(0x30 + b, "08b") for b in prefix)
    packed = _pack("1" + "10" + literals + _MATCH * 24)  # BFINAL, BTYPE=01 (fixed)
    head, period = packed[: k + 1], packed[k + 1 : k + 14]
    assert packed[k + 14 : k + 27] == period
    groups = int(gigabytes * 1e9 / (258 * 8))
    # The tiled bytes end 5 bits into reference number 8 * groups: finish it, then end.
    body = head + period * groups + _pack(_MATCH[5:] + "0000000")
    repeats = 258 * (8 * groups + 1)
    return b"\x78\x01" + body + struct.pack(">I", _adler(prefix, repeats)), k + repeats


def _adler(prefix: bytes, repeats: int) -> int:
    """Adler-32 of ``prefix`` followed by its last byte ``repeats`` times, in closed form."""
    mod = 65521
    a, b = 1, 0
    for byte in prefix:
        a = (a + byte) % mod
        b = (b + a) % mod
    c = prefix[-1]
    b = (b + repeats * a + c * (repeats * (repeats + 1) // 2)) % mod
    a = (a + c * repeats) % mod
    return (b << 16) | a


def pdf_of(objects: list[bytes]) -> bytes:
    """A PDF with these objects (numbered from 1; object 1 the catalog) and a true xref."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objects):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % (i + 1) + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(
        b"trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def inflating_pdf(gigabytes: float = 4.0) -> bytes:
    """One page whose content stream inflates to ``gigabytes`` GB."""
    stream, _ = repeat_deflate(gigabytes)
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream)
            + stream
            + b"\nendstream",
            FONT,
        ]
    )


def many_pages_pdf(pages: int = 100_000) -> bytes:
    """``pages`` empty pages in one flat page tree."""
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    return pdf_of(objects)


def cyclic_pdf() -> bytes:
    """A page tree whose nodes are each other's kids (and a page whose parent loops)."""
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
            b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R 4 0 R] /Count 3 >>",
            b"<< /Type /Page /Parent 3 0 R /Contents 5 0 R /Resources 4 0 R >>",
            b"<< /Length 6 0 R >>\nstream\nBT ET\nendstream",
            b"5 0 R",
        ]
    )


WORD_OPENING = (
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body><w:p><w:r><w:t>bomb "
)


def docx_zip_bomb(gigabytes: float = 2.0) -> bytes:
    """A .docx whose ``word/document.xml`` inflates to ``gigabytes`` GB of well-formed XML
    (an opened text run, then spaces); zip's deflate is raw deflate: the zlib header and
    checksum are cut off. Its directory claims a small size and a zero CRC: a reader must
    trust neither."""
    stream, size = repeat_deflate(gigabytes, WORD_OPENING)
    out = io.BytesIO()
    central = [
        _local(out, b"[Content_Types].xml", 0, b"<Types/>", 8, zlib.crc32(b"<Types/>")),
        _local(out, b"word/document.xml", 8, stream[2:-4], size & 0xFFFFFFFF, 0),
    ]
    cd_start = out.tell()
    for record in central:
        out.write(record)
    cd_size = out.tell() - cd_start
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 2, 2, cd_size, cd_start, 0))
    return out.getvalue()


def _local(out: io.BytesIO, name: bytes, method: int, body: bytes, size: int, crc: int) -> bytes:
    """Write a zip member's local header and data; its central directory record."""
    offset = out.tell()
    fields = (20, 0, method, 0, 0, crc, len(body), size, len(name), 0)
    out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", *fields) + name + body)
    central = (20, 20, 0, method, 0, 0, crc, len(body), size, len(name), 0, 0, 0, 0, 0, offset)
    return struct.pack("<4s6H3L5H2L", b"PK\x01\x02", *central) + name


def entity_bomb_docx() -> bytes:
    """A .docx whose document is the billion-laughs XML entity bomb."""
    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)
    ]
    xml = (
        '<?xml version="1.0"?><!DOCTYPE w:document [' + "".join(lol) + "]>"
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", xml)
    return buf.getvalue()


def huge_png(width: int = 30_000, height: int = 30_000) -> bytes:
    """A PNG header claiming ``width`` x ``height`` pixels, with a tiny (truncated) body."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    body = struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    idat = zlib.compress(b"\x00" * 1024)
    body += (
        struct.pack(">I", len(idat))
        + b"IDAT"
        + idat
        + struct.pack(">I", zlib.crc32(b"IDAT" + idat))
    )
    return b"\x89PNG\r\n\x1a\n" + body
