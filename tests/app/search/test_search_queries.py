"""Search queries: any natural text is safe, the FTS5 grammar works in fts mode, arguments
are validated, stopwords and owner names, folder and visibility filters."""

from __future__ import annotations

import pytest

from hoard.core.errors import BadQuery, InvalidArgument, PathRejected
from hoard.core.models import SearchResult
from hoard.core.policy import OWNER

HOSTILE = [
    "it's",
    "C++",
    "e-mail",
    '"unbalanced',
    "AND",
    "OR",
    "NOT",
    "*",
    "",
    "   \t\n ",
    "🦓",
    "zebra 🦓 🎉",
    "NEAR(a b)",
    "NEAR(zebra stripes, 2)",
    "title:foo",
    "body:zebra",
    "foo AND",
    "(((",
    ")",
    "^zebra",
    "-zebra",
    "zebra*",
    '""',
    "'",
    "\x00",
    "a\\b",
    "SELECT * FROM notes; --",
    "ünïcödé ÅØÆ straße",
    "x" * 200,
    ("lorem ipsum dolor sit amet " * 400)[:10_240],
]


@pytest.fixture
def zoo(write_note, open_hoard):
    write_note("tech/zebra.md", "Zebra stripes", "The zebra has stripes. Send an e-mail about C++.")
    write_note("tech/giraffe.md", "Giraffe necks", "It's a giraffe with a long neck.")
    return open_hoard()


@pytest.mark.parametrize("query", HOSTILE, ids=lambda q: repr(q[:30]))
def test_any_natural_query_returns_a_result_and_never_raises(zoo, query):
    result = zoo.searching.search(query, caller=OWNER)

    assert isinstance(result, SearchResult)
    assert result.query == query
    assert result.engine == "fts5"
    assert result.error is None
    assert isinstance(result.results, list)


def test_natural_query_with_punctuation_still_finds_the_words(zoo):
    assert [h.path for h in zoo.searching.search("e-mail", caller=OWNER).results] == [
        "tech/zebra.md"
    ]
    assert zoo.searching.search("it's giraffe", caller=OWNER).results[0].path == "tech/giraffe.md"
    assert "tech/zebra.md" in [h.path for h in zoo.searching.search("C++", caller=OWNER).results]


def test_an_empty_or_symbol_only_natural_query_returns_no_results(zoo):
    for query in ("", "   ", "*", "🦓", "+++"):
        assert zoo.searching.search(query, caller=OWNER).results == []


@pytest.fixture
def fts_vault(write_note, open_hoard):
    write_note("tech/fox.md", "Foxes", "the quick brown fox jumps over the lazy dog")
    write_note("tech/dog.md", "Dogs", "a lazy dog sleeps; the fox is far too slow and never quick")
    write_note("tech/kube.md", "Cluster", "kubernetes upgrade notes for the homelab")
    write_note("tech/brown.md", "Brown bears", "brown bears eat fish")
    return open_hoard()


def _paths(result: SearchResult) -> set[str]:
    return {h.path for h in result.results}


def test_fts_mode_matches_an_exact_phrase(fts_vault):
    assert _paths(fts_vault.searching.search('"quick brown fox"', mode="fts", caller=OWNER)) == {
        "tech/fox.md"
    }


def test_fts_mode_matches_a_prefix(fts_vault):
    assert _paths(fts_vault.searching.search("kube*", mode="fts", caller=OWNER)) == {"tech/kube.md"}


def test_fts_mode_supports_and_or_not(fts_vault):
    assert _paths(fts_vault.searching.search("fox AND lazy", mode="fts", caller=OWNER)) == {
        "tech/fox.md",
        "tech/dog.md",
    }
    assert _paths(fts_vault.searching.search("kubernetes OR bears", mode="fts", caller=OWNER)) == {
        "tech/kube.md",
        "tech/brown.md",
    }
    assert _paths(fts_vault.searching.search("fox NOT jumps", mode="fts", caller=OWNER)) == {
        "tech/dog.md"
    }


def test_fts_mode_supports_near(fts_vault):
    assert _paths(fts_vault.searching.search("NEAR(quick fox, 1)", mode="fts", caller=OWNER)) == {
        "tech/fox.md"
    }


def test_fts_mode_supports_column_filters(fts_vault):
    assert _paths(fts_vault.searching.search("title:brown", mode="fts", caller=OWNER)) == {
        "tech/brown.md"
    }
    assert _paths(fts_vault.searching.search("body:brown", mode="fts", caller=OWNER)) == {
        "tech/fox.md",
        "tech/brown.md",
    }


@pytest.mark.parametrize(
    ("query", "sqlite_words"),
    [
        ("foo AND", "syntax error"),
        ('"unbalanced', "unterminated string"),
        ("NEAR(a b", "syntax error"),
        ("nosuchcolumn:x", "no such column"),
    ],
)
def test_fts_mode_syntax_error_is_bad_query_quoting_sqlite(fts_vault, query, sqlite_words):
    with pytest.raises(BadQuery) as info:
        fts_vault.searching.search(query, mode="fts", caller=OWNER)

    assert sqlite_words in info.value.message
    assert info.value.to_object()["error"] == "bad_query"


def test_fts_mode_empty_query_is_bad_query(fts_vault):
    with pytest.raises(BadQuery):
        fts_vault.searching.search("  ", mode="fts", caller=OWNER)


@pytest.mark.parametrize("mode", ["", "FTS", "regex", None])
def test_an_unknown_mode_is_invalid_argument(fts_vault, mode):
    with pytest.raises(InvalidArgument) as info:
        fts_vault.searching.search("fox", mode=mode, caller=OWNER)
    assert not isinstance(info.value, BadQuery)


@pytest.mark.parametrize("limit", [0, -1, 101, True, 2.5, "5", None])
def test_an_out_of_range_limit_is_invalid_argument(fts_vault, limit):
    with pytest.raises(InvalidArgument):
        fts_vault.searching.search("fox", limit=limit, caller=OWNER)


@pytest.mark.parametrize("rerank", ["", "yes", "always", None])
def test_an_unknown_rerank_choice_is_invalid_argument(fts_vault, rerank):
    with pytest.raises(InvalidArgument):
        fts_vault.searching.search("fox", rerank=rerank, caller=OWNER)


def test_a_query_that_is_not_a_string_is_invalid_argument(fts_vault):
    with pytest.raises(InvalidArgument):
        fts_vault.searching.search(["fox"], caller=OWNER)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [1, 100])
def test_limit_bounds_are_inclusive(fts_vault, limit):
    assert len(fts_vault.searching.search("fox", limit=limit, caller=OWNER).results) <= limit


def test_limit_caps_the_number_of_results(write_note, open_hoard):
    for i in range(6):
        write_note(f"n{i}.md", f"Note {i}", "wombat " * (i + 1))
    assert len(open_hoard().searching.search("wombat", limit=4, caller=OWNER).results) == 4


def test_a_stopword_alone_is_still_searched(write_note, open_hoard):
    write_note("tech/cat.md", "Pet", "the cat sat on the mat")

    result = open_hoard().searching.search("the", caller=OWNER)

    assert [h.path for h in result.results] == ["tech/cat.md"]


def test_stopwords_do_not_drag_in_notes_that_only_match_them(write_note, open_hoard):
    write_note("tech/cat.md", "Pet", "the cat sat on the mat")
    write_note("tech/zebra.md", "Zoo", "zebra stripes")

    result = open_hoard().searching.search("the zebra", caller=OWNER)

    assert [h.path for h in result.results] == ["tech/zebra.md"]


def test_configured_owner_names_are_dropped_from_queries(vault, write_note, open_hoard):
    (vault / "hoard.toml").write_text('[search]\nowner_names = ["freja"]\n', encoding="utf-8")
    write_note("life/freja.md", "Freja's birthday", "freja likes cake")
    write_note("life/zebra.md", "Zoo trip", "we saw a zebra")

    result = open_hoard().searching.search("Freja zebra", caller=OWNER)

    assert [h.path for h in result.results] == ["life/zebra.md"]


def test_folder_restricts_results_to_that_folder_and_below(write_note, open_hoard):
    write_note("tech/a.md", "A", "otter notes")
    write_note("tech/homelab/b.md", "B", "otter notes")
    write_note("tech-old/c.md", "C", "otter notes")
    write_note("life/d.md", "D", "otter notes")
    h = open_hoard()

    assert _paths(h.searching.search("otter", folder="tech", caller=OWNER)) == {
        "tech/a.md",
        "tech/homelab/b.md",
    }
    assert _paths(h.searching.search("otter", folder="tech/", caller=OWNER)) == {
        "tech/a.md",
        "tech/homelab/b.md",
    }
    assert _paths(h.searching.search("otter", folder="tech/homelab", caller=OWNER)) == {
        "tech/homelab/b.md"
    }
    assert _paths(h.searching.search("otter", folder="nowhere", caller=OWNER)) == set()
    assert len(h.searching.search("otter", caller=OWNER).results) == 4


def test_a_hostile_folder_is_path_rejected(fts_vault):
    for folder in ("../x", "/etc", ".git"):
        with pytest.raises(PathRejected):
            fts_vault.searching.search("fox", folder=folder, caller=OWNER)


def test_hidden_results_are_counted_never_shown(write_note, open_hoard):
    write_note("tech/a.md", "A", "lemur facts")
    write_note("secret/b.md", "B", "lemur facts")

    result = open_hoard().searching.search(
        "lemur", visible=lambda p: not p.startswith("secret/"), caller=OWNER
    )

    assert [h.path for h in result.results] == ["tech/a.md"]
    assert result.hidden_protected == 1


def test_a_plain_search_reports_the_spec_fields(fts_vault):
    result = fts_vault.searching.search("fox", caller=OWNER)

    assert result.engine == "fts5"
    assert result.error is None
    assert result.reranked is False
    assert result.hidden_protected == 0
    assert result.took_ms >= 0
    assert result.warnings == []
    for hit in result.results:
        assert hit.folder == "tech"
        assert hit.warnings == []


def test_contested_is_set_when_the_top_two_are_close(write_note, open_hoard):
    write_note("a/one.md", "Same", "narwhal tusk")
    write_note("b/two.md", "Same", "narwhal tusk")
    write_note("c/three.md", "Other", "narwhal " + "filler words here " * 40)
    h = open_hoard()

    assert h.searching.search("narwhal", caller=OWNER).contested is True
    assert h.searching.search("narwhal", folder="c", caller=OWNER).contested is False
