"""Template filters: times, note links, diffs as classified lines, highlighted snippets."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

from hoard.core.choices import ArchiveReason, values
from hoard.core.plain import plain_text
from hoard.core.segment import query_runs
from hoard.core.snippet import match_spans
from hoard.surfaces.web.markdown import file_href, note_href
from hoard.surfaces.web.words import refusal_of

_WORD = re.compile(r"\w+")


def when(value: float | str | None) -> str:
    """``2026-03-01 12:00 UTC`` from epoch seconds or an ISO string."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value.replace("T", " ").replace("+00:00", " UTC").replace("Z", " UTC")
    return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def ago(value: float | str | None) -> str:
    if value is None or value == "":
        return ""
    seconds = value if isinstance(value, float | int) else _parse_iso(value)
    delta = time.time() - seconds
    future = delta < 0
    delta = abs(delta)
    if delta < 60:
        text = f"{int(delta)} s"
    elif delta < 3600:
        text = f"{int(delta // 60)} min"
    elif delta < 86400:
        text = f"{int(delta // 3600)} h"
    else:
        text = f"{int(delta // 86400)} d"
    return f"in {text}" if future else f"{text} ago"


def _parse_iso(value: str) -> float:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


def diff_lines(diff: str | None) -> list[tuple[str, str]]:
    """``(kind, line)`` for a unified diff: ``add``, ``del``, ``hunk``, ``file`` or ``ctx``."""
    out: list[tuple[str, str]] = []
    for line in (diff or "").splitlines():
        if line.startswith(("+++", "---")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        out.append((kind, line))
    return out


def highlight(snippet: str, query: str, extra: list[str] | None = None) -> Markup:
    """The snippet as text (its Markdown syntax taken out), escaped, with the words that
    match the query in ``<mark>``."""
    snippet = plain_text(snippet)
    runs = [r.run for chunk in query.split() for r in query_runs(chunk)]  # Thai: not at marks
    terms = _WORD.findall(query) + runs + list(extra or [])
    spans = match_spans(snippet, terms)
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts.append(str(escape(snippet[last:start])))
        parts.append(f"<mark>{escape(snippet[start:end])}</mark>")
        last = end
    parts.append(str(escape(snippet[last:])))
    return Markup("".join(parts))


def tags_of(frontmatter: dict[str, Any] | None) -> list[str]:
    """A note's ``tags`` as declared (a list, or one string of words), without ``#``."""
    raw = (frontmatter or {}).get("tags")
    items = raw.replace(",", " ").split() if isinstance(raw, str) else raw
    if not isinstance(items, list):
        return []
    return [str(t).lstrip("#") for t in items if str(t).strip("# ")]


def updated_of(frontmatter: dict[str, Any] | None) -> str:
    """A note's declared ``updated`` date, as written (its date part when it has a time)."""
    raw = (frontmatter or {}).get("updated")
    return "" if raw is None or raw == "" else str(raw).replace("T", " ")[:16]


def short(value: Any, n: int = 12) -> str:
    return "" if value is None else str(value)[:n]


def hit_href(hit: Any) -> str:
    """Where a search hit links: a note's page, or an attachment's file (its page for a PDF)."""
    if getattr(hit, "kind", None) != "attachment":
        return note_href(hit.path)
    page = getattr(hit, "page", None)
    return file_href(hit.path) + (
        f"#page={page}" if page and hit.path.lower().endswith(".pdf") else ""
    )


def install(env: Environment) -> None:
    env.filters.update(
        when=when,
        ago=ago,
        diff_lines=diff_lines,
        highlight=highlight,
        short=short,
        tags_of=tags_of,
        updated_of=updated_of,
        refusal=refusal_of,
    )
    env.globals["note_href"] = note_href
    env.globals["hit_href"] = hit_href
    env.globals["archive_reasons"] = values(ArchiveReason)
