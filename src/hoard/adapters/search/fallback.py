"""The labeled fallback engine: while the index is unusable, search scans the notes
themselves, bounded in bytes, chunk by chunk (``engine: "substring-fallback"``)."""

from __future__ import annotations

import time
import unicodedata

from hoard.adapters.fs.vault import Vault
from hoard.adapters.index.rows import rank_multiplier
from hoard.adapters.search.types import SearchOutcome, SearchRequest, diversify, significant
from hoard.core.choices import SearchEngine
from hoard.core.config import Config
from hoard.core.errors import HoardError
from hoard.core.frontmatter import split_frontmatter
from hoard.core.models import SearchHit
from hoard.core.note import parse_note
from hoard.core.paths import folder_of
from hoard.core.query import parse_natural
from hoard.core.reach import counts_as_hidden


class SubstringSearcher:
    """The fallback: scans the notes themselves, bounded in bytes, chunk by chunk."""

    name: SearchEngine = "substring-fallback"

    def __init__(self, vault: Vault, config: Config) -> None:
        self.vault = vault
        self.config = config
        s = config.search
        self._stopwords = frozenset(w.lower() for w in (*s.stopwords, *s.owner_names))

    def search(self, req: SearchRequest) -> SearchOutcome:
        chunks = parse_natural(req.query, self._stopwords)
        needles: list[list[str]] = []
        for c in chunks:
            phrase = " ".join(c.tokens)
            needles.append([phrase, *c.alternatives])
        if not needles:
            return SearchOutcome([], self.name)
        budget = self.config.limits.fallback_max_bytes
        weights = dict(self.config.search.folder_weights)
        hits: list[SearchHit] = []
        hidden = 0
        timed_out = False
        for fs in self.vault.walk():
            if req.folder and not fs.path.startswith(req.folder + "/"):
                continue
            if budget <= 0:
                break
            if req.deadline is not None and time.monotonic() >= req.deadline:
                timed_out = True
                break
            try:
                _, raw, _ = self.vault.read_note(fs.path, max_bytes=min(budget, 1 << 20))
            except HoardError:
                continue
            budget -= len(raw)
            text = raw.decode("utf-8", errors="replace")
            low = _fold_for_scan(text)
            score = 0.0
            first = -1
            for alts in needles:
                for needle in alts:
                    pos = low.find(needle)
                    if pos >= 0:
                        score += 1.0 + min(low.count(needle), 10) * 0.1
                        first = pos if first < 0 else min(first, pos)
                        break
            if score <= 0:
                continue
            if req.visible is not None and not req.visible(fs.path):
                hidden += counts_as_hidden(req.visible, fs.path)
                continue
            doc = parse_note(fs.path, raw, self.config.search.title_keys)
            if any(alts[0] in _fold_for_scan(doc.title) for alts in needles):
                score += 2.0
            score *= rank_multiplier(fs.path, weights)
            hits.append(
                SearchHit(
                    fs.path,
                    doc.title,
                    significant(score),
                    _window(text, first, self.config.search.snippet_chars),
                    folder_of(fs.path),
                    None,
                )
            )
        hits.sort(key=lambda h: (-h.score, h.path))
        page = diversify(hits, self.config.search.folder_cap, lambda h: h.folder)[: req.limit]
        return SearchOutcome(page, self.name, hidden=hidden, timed_out=timed_out)


def _fold_for_scan(text: str) -> str:
    """Lower-case, strip diacritics, keep offsets (one char in, one char out)."""
    low = text.lower()
    if low.isascii():
        return low
    out = []
    for ch in low:
        if ch.isascii():
            out.append(ch)
        else:
            base = unicodedata.normalize("NFKD", ch)[:1]
            out.append(base if base.isascii() and base else ch)
    return "".join(out)


def _window(text: str, pos: int, width: int) -> str:
    body_start = split_frontmatter(text).body_offset
    if pos < body_start:
        pos = body_start
    start = max(body_start, pos - width // 3)
    snippet = " ".join(text[start : start + width].split())
    return ("…" if start > body_start else "") + snippet
