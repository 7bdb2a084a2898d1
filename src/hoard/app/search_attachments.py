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
from hoard.core.query import parse_natural, quote
from hoard.core.reach import counts_as_hidden
from hoard.core.snippet import best_window


def attachment_terms(query: str, search: SearchConfig) -> tuple[list[list[str]], list[str]]:
    """The query's groups for attachment pages, each as its FTS5 strings (the word or
    phrase and its other spellings; whole stemmed words, no prefixes: pages are long and a
    prefix would rank every page holding a completion, a third of the attachment side's
    time on the bench; no n-gram columns, which notes alone have), and the words a snippet
    looks for."""
    stopwords = frozenset(w.lower() for w in (*search.stopwords, *search.owner_names))
    chunks = parse_natural(query, stopwords)
    terms = [t for c in chunks for t in (*c.tokens, *c.alternatives)]
    groups = [[quote(" ".join(c.tokens)), *map(quote, c.alternatives)] for c in chunks]
    return groups, terms


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
    groups, terms = attachment_terms(query, search)
    if mode == "fts":
        found = attachments.search(query, fetch, folder)
    else:
        found = attachments.search_groups(
            groups, fetch, folder, search.ranking, _last_score(outcome, fetch)
        )
    hits: list[SearchHit] = []
    bodies: dict[str, str] = {}
    hidden = 0
    for page in found:
        if visible is not None and not visible(page.path):
            hidden += counts_as_hidden(visible, page.path)
            continue
        hits.append(_hit(page.path, page.page, page.score))
        bodies[page.path] = page.body
    if not hits and not hidden:
        return outcome
    merged = sorted([*outcome.hits, *hits], key=lambda h: -h.score)[:fetch]
    width = search.snippet_chars
    shown = [  # snippets only for the attachments that made the page
        replace(h, snippet=best_window(bodies[h.path], terms, width)) if h.kind else h
        for h in merged
    ]
    return replace(outcome, hits=shown, hidden=outcome.hidden + hidden)


def _last_score(outcome: SearchOutcome, fetch: int) -> float | None:
    """The score an attachment must pass to make a page the notes already fill."""
    if len(outcome.hits) < fetch:
        return None
    return sorted((h.score for h in outcome.hits), reverse=True)[fetch - 1]


def _hit(path: str, page: int, score: float) -> SearchHit:
    folder, _, name = path.rpartition("/")
    return SearchHit(
        path=path,
        title=name,
        score=significant(score),
        snippet="",
        folder=folder,
        frontmatter=None,
        kind="attachment",
        page=page,
    )
