"""Images to text with Debian's ``tesseract`` (optional: only when the parent found it on
the PATH). The pixel count is read from the file's header first: an image of more pixels
than the limit is refused before any decoder sees it. Runs in the extraction worker."""

from __future__ import annotations

import struct
import subprocess


class ImageProblem(Exception):
    def __init__(self, problem: str, detail: str) -> None:
        super().__init__(detail)
        self.problem = problem
        self.detail = detail


_JPEG_FRAMES = frozenset(
    {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
)


def dimensions(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG, GIF or JPEG header; ``None`` for other formats."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return int(w), int(h)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_dimensions(data)
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _JPEG_FRAMES:
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(w), int(h)
        i += 2 + length
    return None


def image_pages(data: bytes, tesseract: str, max_pixels: int, time_s: float) -> list[str]:
    size = dimensions(data)
    if size is not None and size[0] * size[1] > max_pixels:
        raise ImageProblem(
            "too_many_pages", f"{size[0]} x {size[1]} pixels; the limit is {max_pixels}"
        )
    try:
        done = subprocess.run(
            [tesseract, "stdin", "stdout", "--psm", "3"],
            input=data,
            capture_output=True,
            timeout=max(1.0, time_s),
            check=False,
            env={"PATH": "/usr/bin:/bin", "OMP_THREAD_LIMIT": "1", "LC_ALL": "C.UTF-8"},
        )
    except subprocess.TimeoutExpired as exc:
        raise ImageProblem("time", "OCR ran past the time limit") from exc
    except OSError as exc:
        raise ImageProblem("unreadable", f"cannot run tesseract: {exc}") from exc
    if done.returncode != 0:
        raise ImageProblem("malformed", "tesseract could not read the image")
    return [done.stdout.decode("utf-8", errors="replace")]
