"""The extraction worker: one child process that turns attachments' bytes into text.

Started by :class:`hoard.adapters.attachments.pool.ExtractorPool` as
``python -I -B -m hoard.adapters.attachments.worker MEMORY`` with an empty environment and
``/`` as its folder. It sees no file of the vault and no credential: the parent reads each
file (through the vault's safe open) and sends its bytes. Before anything else it limits
itself: address space (``MEMORY`` bytes), no file writes, no core dumps; for each job, CPU
time (``RLIMIT_CPU``, the kernel kills it past the limit) and an ``alarm`` should the parent
vanish. The parent kills it at the wall-clock deadline too.

Parent → worker, per job: a JSON line ``{"kind", "size", "max_pages", "max_chars",
"max_pixels", "time_s", "tesseract"}`` then exactly ``size`` bytes.
Worker → parent: one JSON line, ``{"ok": true, "pages": [...], "truncated": bool}`` or
``{"ok": false, "problem": str, "detail": str}``.
"""

from __future__ import annotations

import json
import math
import resource
import signal
import sys
from typing import Any, BinaryIO

from hoard.adapters.attachments.extract_docx import DocxProblem, docx_pages
from hoard.adapters.attachments.extract_image import ImageProblem, image_pages
from hoard.adapters.attachments.extract_pdf import PdfProblem, pdf_pages
from hoard.adapters.attachments.extract_text import html_pages, text_pages

Problems = (PdfProblem, DocxProblem, ImageProblem)


def limit_self(memory: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def limit_job(time_s: float) -> None:
    """CPU seconds for this job on top of what the process used so far, and an alarm."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(spent + time_s) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    signal.alarm(math.ceil(time_s) + 3)


def extract(job: dict[str, Any], data: bytes) -> dict[str, Any]:
    kind = job["kind"]
    max_pages = int(job["max_pages"])
    max_chars = int(job["max_chars"])
    truncated = False
    try:
        if kind == "pdf":
            pages, truncated = pdf_pages(data, max_pages, max_chars)
        elif kind == "docx":
            pages = docx_pages(data, max_pages)
        elif kind == "html":
            pages = html_pages(data)
        elif kind == "image" and job.get("tesseract"):
            pages = image_pages(data, job["tesseract"], int(job["max_pixels"]), job["time_s"])
        elif kind == "text":
            pages = text_pages(data)
        else:
            return {"ok": False, "problem": "malformed", "detail": f"unknown kind {kind!r}"}
    except Problems as exc:
        return {"ok": False, "problem": exc.problem, "detail": exc.detail}
    except MemoryError:
        return {"ok": False, "problem": "memory", "detail": "the extraction ran out of memory"}
    except RecursionError:
        return {"ok": False, "problem": "malformed", "detail": "the file nests too deeply"}
    capped = _capped(pages, max_chars)
    truncated = truncated or sum(map(len, capped)) < sum(map(len, pages))
    return {"ok": True, "pages": capped, "truncated": truncated}


def _capped(pages: list[str], max_chars: int) -> list[str]:
    """The pages up to ``max_chars`` characters in all (the pages past it left out)."""
    out: list[str] = []
    left = max_chars
    for text in pages:
        if left <= 0:
            break
        out.append(text[:left])
        left -= len(text)
    return out


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while got < size:
        block = stream.read(min(1 << 20, size - got))
        if not block:
            raise EOFError
        chunks.append(block)
        got += len(block)
    return b"".join(chunks)


def main() -> None:
    limit_self(int(sys.argv[1]))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        job = json.loads(line)
        data = _read_exactly(stdin, int(job["size"]))
        limit_job(float(job["time_s"]))
        try:
            reply = extract(job, data)
        except Exception as exc:  # a parser's own bug on a hostile file: report, go on
            reply = {"ok": False, "problem": "malformed", "detail": f"{type(exc).__name__}: {exc}"}
        del data
        signal.alarm(0)
        stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()


if __name__ == "__main__":
    main()
