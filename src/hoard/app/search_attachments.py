"""Attachments in a search: the pages of PDFs, Word files, texts and HTML pages that match
the query, one hit per file (its best page), merged into the notes' ranking by score.

Their score is BM25 over the page text with the notes' tokenizer, so it sits on the scale
of a note's body score (a note's title and tags weigh more). The same access rules as for
notes, by path: a protected attachment is hidden and counted, a caller's folders bound it.
A search never fails because of an attachment: a broken ``attachments.db`` is logged and
the notes answer alone (see :meth:`~hoard.adapters.attachments.indexer.Attachments.search`).
"""

from __future__ import annotations

from dataclasses import replace

from hoard.adapters.attachments.indexer import Attachments
from hoard.adapters.search.types import SearchOutcome, Visible, significant
from hoard.core.config import SearchConfig
from hoard.core.models import SearchHit
from hoard.core.query import build_groups, parse_natural
from hoard.core.reach import counts_as_hidden
from hoard.core.snippet import best_window


def attachment_expression(query: str, mode: str, search: SearchConfig) -> tuple[str, list[str]]:
    """The FTS5 expression of the query for attachment pages, and the words a snippet
    looks for. ``fts`` queries as written; natural ones as the notes' groups, without the
    n-gram columns notes have."""
    stopwords = frozenset(w.lower() for w in (*search.stopwords, *search.owner_names))
    chunks = parse_natural(query, stopwords)
    terms = [t for c in chunks for t in (*c.tokens, *c.alternatives)]
    if mode == "fts":
        return query, terms
    for c in chunks:
        c.runs = []
    return " OR ".join(build_groups(chunks, search.prefix_min_length)), terms


def with_attachments(
    outcome: SearchOutcome,
    attachments: Attachments | None,
    query: str,
    mode: str,
    fetch: int,
    folder: str | None,
    visible: Visible | None,
    search: SearchConfig,
) -> SearchOutcome:
    """``outcome`` with the matching attachments merged in by score (and those the caller
    may not see counted as hidden). Typeahead searches titles: no attachments there."""
    if attachments is None or mode == "typeahead" or not query.strip():
        return outcome
    expr, terms = attachment_expression(query, mode, search)
    if not expr:
        return outcome
    found = attachments.search(expr, fetch, folder)
    hits: list[SearchHit] = []
    hidden = 0
    for page in found:
        if visible is not None and not visible(page.path):
            hidden += counts_as_hidden(visible, page.path)
            continue
        hits.append(_hit(page.path, page.page, page.score, page.body, terms, search))
    if not hits and not hidden:
        return outcome
    merged = sorted([*outcome.hits, *hits], key=lambda h: -h.score)[:fetch]
    return replace(outcome, hits=merged, hidden=outcome.hidden + hidden)


def _hit(
    path: str, page: int, score: float, body: str, terms: list[str], search: SearchConfig
) -> SearchHit:
    folder, _, name = path.rpartition("/")
    return SearchHit(
        path=path,
        title=name,
        score=significant(score),
        snippet=best_window(body, terms, search.snippet_chars),
        folder=folder,
        frontmatter=None,
        kind="attachment",
        page=page,
    )
