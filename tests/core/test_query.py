"""hoard.core.query: natural-mode text always becomes an FTS5 expression SQLite accepts."""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hoard.core.query import (
    MAX_QUERY_CHUNKS,
    MAX_TERM_CHARS,
    Chunk,
    adjacent_pairs,
    build_groups,
    is_prefix_eligible,
    max_edits,
    parse_natural,
    within_budget,
)

STOPWORDS = frozenset({"a", "the", "and", "how"})


def run_match(db: sqlite3.Connection, text: str, **kwargs: object) -> list[str] | None:
    """Paths matching natural-mode ``text``; None when the text has no searchable chunk."""
    chunks = parse_natural(text, STOPWORDS)
    if not chunks:
        return None
    expression = " OR ".join(build_groups(chunks, 4, **kwargs))  # type: ignore[arg-type]
    rows = db.execute(
        "SELECT path FROM notes_fts WHERE notes_fts MATCH ? ORDER BY path", (expression,)
    ).fetchall()
    return [r[0] for r in rows]


HOSTILE = [
    "it's",
    "C++",
    "e-mail",
    '"unbalanced',
    'un"balanced',
    '""',
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b)",
    "a AND",
    "OR b",
    "NOT NOT",
    "*",
    "prefix*",
    "-",
    "-term",
    "+term",
    "^start",
    "title:hue",
    "title : hue",
    "{title body}: hue",
    "",
    " ",
    "   \t\n ",
    "😀",
    "hue 😀 bridge",
    "👩‍👩‍👧",
    "(",
    ")",
    "(a OR b",
    "a) (b",
    "'single' \"double\" (paren) [bracket] {brace}",
    "x" * 10_000,
    "word " * 2_000,
    "a-" * 5_000,
    "smørrebrød Århus",
    "日本語の検索",
    "\u0000\u0001",
    "a\u200bb",
    "١٢٣ arabic digits",
    "the",
    "the and how a",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_natural_text_never_yields_an_expression_fts5_rejects(
    fts_db: sqlite3.Connection, text: str
) -> None:
    run_match(fts_db, text)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_natural_text_is_accepted_with_fold_and_typo_alternatives(
    fts_db: sqlite3.Connection, text: str
) -> None:
    chunks = parse_natural(text, STOPWORDS)
    if not chunks:
        return
    extra = {i: ['typo"fix', "x y", "ø"] for i in range(len(chunks))}
    expression = " OR ".join(build_groups(chunks, 1, extra))
    fts_db.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (expression,))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
@example('"')
@example('" OR "')
@example("NEAR(")
def test_any_text_yields_an_expression_fts5_accepts(fts_db: sqlite3.Connection, text: str) -> None:
    run_match(fts_db, text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abcø \"'*-+():^{}ANDORNTE", max_size=40))
def test_query_grammar_soup_yields_an_expression_fts5_accepts(
    fts_db: sqlite3.Connection, text: str
) -> None:
    run_match(fts_db, text)


@pytest.mark.parametrize("text", ["", " ", "***", "-", "😀 🎉", "¡¿"])
def test_text_without_letters_or_digits_has_no_chunks(text: str) -> None:
    assert parse_natural(text, STOPWORDS) == []


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("it's", [["it", "s"], ["it"], ["s"]]),
        ("C++", [["c"]]),
        ("e-mail", [["e", "mail"], ["e"], ["mail"]]),
        ("Hue  Bridge", [["hue"], ["bridge"]]),
        ("AND OR NOT", [["and"], ["or"], ["not"]]),
        ("snake_case", [["snake", "case"], ["snake"], ["case"]]),
        ("two-phase commit", [["two", "phase"], ["commit"], ["two"], ["phase"]]),
        ("cafe\u0301", [["caf\u00e9"]]),
    ],
)
def test_chunks_are_lowercased_letter_and_digit_runs_and_a_phrase_also_counts_its_words(
    text: str, tokens: list[list[str]]
) -> None:
    assert [c.tokens for c in parse_natural(text, frozenset())] == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("how the hue bridge works", [["hue"], ["bridge"], ["works"]]),
        ("The Bridge", [["bridge"]]),
        ("the", [["the"]]),
        ("how the", [["how"], ["the"]]),
        ("a-the", [["a", "the"]]),
    ],
)
def test_stopwords_are_dropped_unless_nothing_else_remains(
    text: str, tokens: list[list[str]]
) -> None:
    assert [c.tokens for c in parse_natural(text, STOPWORDS)] == tokens


def test_a_query_is_capped_in_chunks_and_term_length() -> None:
    chunks = parse_natural(" ".join(f"w{i}" for i in range(100)), STOPWORDS)
    assert len(chunks) == MAX_QUERY_CHUNKS
    (long_chunk,) = parse_natural("x" * 500, STOPWORDS)
    assert long_chunk.tokens == ["x" * MAX_TERM_CHARS]


def test_every_term_is_quoted_and_prefixes_start_at_the_minimum_length() -> None:
    assert build_groups([Chunk(["hue"])], 4) == ['"hue"']
    assert build_groups([Chunk(["bridge"])], 4) == ['("bridge" OR "bridge"*)']
    assert build_groups([Chunk(["e", "mail"])], 4) == ['"e mail"']
    assert build_groups([Chunk(["2026"])], 4) == ['"2026"']
    assert build_groups([Chunk(["a"]), Chunk(["b"])], 4) == ['"a"', '"b"']


def test_fold_variants_and_typo_corrections_are_alternatives_of_their_chunk() -> None:
    chunks = parse_natural("Århus", STOPWORDS)
    assert chunks[0].alternatives == ["aarhus"]
    groups = build_groups(chunks, 4, {0: ["arhus"]})
    assert groups == ['("århus" OR "århus"* OR "aarhus" OR "aarhus"* OR "arhus")']


def test_a_double_quote_inside_a_term_is_escaped() -> None:
    assert build_groups([Chunk(['a"b'])], 10) == ['"a""b"']


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bridge", ["tech/hue-bridge.md"]),
        ("Brid", ["tech/hue-bridge.md"]),
        ("e-mail", ["tech/e-mail.md"]),
        ("it's", ["tech/e-mail.md"]),
        ("C++", ["tech/e-mail.md"]),
        ("smørrebrød", ["life/mad.md"]),
        ("smoerrebroed", ["life/mad.md"]),
        ("Aarhus", ["life/mad.md"]),
        ("arhus", ["life/mad.md"]),
        ("zigbees", ["tech/hue-bridge.md"]),
    ],
)
def test_natural_queries_find_what_they_name(
    fts_db: sqlite3.Connection, text: str, expected: list[str]
) -> None:
    assert run_match(fts_db, text) == expected


def test_a_word_with_a_combining_mark_finds_the_same_word() -> None:
    # Yoruba "ọ̀rọ̀": NFC keeps U+0300 as a combining mark (no precomposed form). The index
    # folds it away ("oro"); the query must not cut the word at the mark ("ọ rọ").
    word = unicodedata.normalize("NFC", "ọ̀rọ̀")
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE notes_fts USING fts5(path, title, tags, body, frontmatter, alt,"
        " title_seg, body_seg, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "INSERT INTO notes_fts VALUES ('y.md', '', '', ?, '', '', '', '')", (f"the word {word}",)
    )
    assert run_match(db, word) == ["y.md"]


@pytest.mark.parametrize(
    ("term", "edits"),
    [
        ("", 0),
        ("hue", 0),
        ("abc", 0),
        ("abcd", 1),
        ("bridge", 1),
        ("abcdefg", 1),
        ("abcdefgh", 2),
        ("configuration", 2),
        ("2026", 0),
        ("ipv6", 0),
        ("h264codec", 0),
        ("smørrebrød", 2),
    ],
)
def test_the_typo_budget_scales_with_length_and_spares_numbers(term: str, edits: int) -> None:
    assert max_edits(term, 4, 8) == edits


def test_a_term_shorter_than_the_typo_minimum_gets_no_edits_whatever_the_two_edit_length() -> None:
    assert max_edits("abcdefgh", 10, 8) == 0
    assert max_edits("abcdefghij", 10, 8) == 2


@pytest.mark.parametrize(
    ("term", "eligible"), [("abc", False), ("abcd", True), ("1234", False), ("a123", True)]
)
def test_prefix_eligibility(term: str, eligible: bool) -> None:
    assert is_prefix_eligible(term, 4) is eligible


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("time sharing system", ["time sharing", "sharing system"]),
        ("TSS (Time Sharing System), for IBM", ["time sharing", "sharing system", "for ibm"]),
        ("the cat and the hat", []),
        ("one", []),
        ("", []),
        ("Søren Kierkegaard; Søren Kierkegaard", ["søren kierkegaard"]),
        ("e-mail client", ["e mail", "mail client"]),
    ],
)
def test_adjacent_pairs_are_neighbouring_words_within_a_clause_without_stopwords(
    text: str, pairs: list[str]
) -> None:
    assert adjacent_pairs(text, STOPWORDS) == pairs


def test_adjacent_pairs_are_capped() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    assert len(adjacent_pairs(text, STOPWORDS, limit=16)) == 16


def test_every_group_is_kept_when_together_they_fit_the_budget():
    assert within_budget([10, 200, 3], 213) == [0, 1, 2]


def test_the_rarest_groups_that_fit_the_budget_are_kept_in_query_order():
    assert within_budget([4000, 10, 900, 50_000, 300], 1500) == [1, 2, 4]


def test_the_rarest_group_is_kept_even_when_it_alone_is_over_the_budget():
    assert within_budget([9000, 7000, 8000], 500) == [1]


def test_the_rare_groups_stop_at_the_first_that_does_not_fit():
    # 10 + 600 fit 1000; 800 does not, and nothing rarer than it is left to try.
    assert within_budget([800, 10, 600, 900], 1000) == [1, 2]


def test_a_budget_of_0_keeps_every_group():
    assert within_budget([10**6, 10**7], 0) == [0, 1]
