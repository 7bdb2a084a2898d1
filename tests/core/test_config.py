"""hoard.core.config: every key has a default; a bad hoard.toml is an error that names the key."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.fs.config_file import load_config
from hoard.core.config import CONFIG_NAME, Config, ContractConfig
from hoard.core.config_reference import config_docs, render_config_reference
from hoard.core.config_schema import SCHEMA, parse_config
from hoard.core.errors import ConfigError, InvalidArgument
from hoard.core.ranking import RETIRED_SEARCH_KEYS, RankingSettings


def test_an_empty_config_is_all_defaults() -> None:
    cfg = parse_config({})
    assert cfg == Config()
    assert cfg.private == ("personal-notes/**",)
    assert cfg.protected == ()
    assert cfg.contract == ContractConfig()
    assert cfg.contract.tags_min == 2
    assert cfg.contract.tags_max == 5
    assert cfg.contract.required == ("title", "type", "status", "tags", "updated")
    assert cfg.contract.max_frontmatter_bytes == 16 * 1024
    assert cfg.search.stopwords == ("a", "the", "and", "how")
    assert cfg.search.weight_title == 6.0
    assert cfg.search.weight_tags == 3.0
    assert cfg.search.weight_body == 1.0
    assert cfg.search.weight_path == 0.5
    assert cfg.search.folder_weights["dreams/**"] == 0.35
    assert cfg.search.folder_weights["logs/**"] == 0.35
    assert cfg.search.folder_weights["archives/**"] == 0.7
    assert cfg.search.folder_cap == 3
    assert cfg.search.prefix_min_length == 4
    assert (cfg.search.typo_min_length, cfg.search.ranking.typo_two_edits_length) == (4, 8)
    assert cfg.limits.read_max_bytes == 256 * 1024
    assert cfg.proposals.ttl_seconds == 7 * 86400
    assert cfg.rerank.enabled is False


def test_git_keys_default_to_pull_every_60_s_push_with_a_remote_and_warn_after_300_s() -> None:
    off = parse_config({}).git
    assert (off.remote, off.pull_every_s, off.warn_after_s, off.pushes) == ("", 60, 300, False)
    on = parse_config({"git": {"remote": "origin"}}).git
    assert (on.pull_every_s, on.warn_after_s, on.pushes) == (60, 300, True)
    assert parse_config({"git": {"remote": "origin", "push": False}}).git.pushes is False
    assert parse_config({"git": {"push": True}}).git.pushes is False, "no remote, no push"


def test_default_configs_do_not_share_mutable_folder_weights() -> None:
    a, b = Config(), Config()
    assert a.search.folder_weights == b.search.folder_weights
    assert a.search.folder_weights is not b.search.folder_weights


def test_valid_values_are_taken() -> None:
    cfg = parse_config(
        {
            "private": ["diary/**"],
            "protected": ["secrets/"],
            "ignore": ["tmp/**"],
            "contract": {"tags_min": 1, "tags_max": 8, "required": ["title"]},
            "search": {
                "stopwords": ["de", "la"],
                "folder_weights": {"daily/**": 0.5},
                "typo": False,
                "weight_title": 10,
            },
            "limits": {"read_max_bytes": 4096},
            "proposals": {"ttl_seconds": 60},
            "rerank": {"enabled": True, "url": "http://127.0.0.1:9/rerank"},
        }
    )
    assert cfg.private == ("diary/**",)
    assert cfg.protected == ("secrets/",)
    assert cfg.ignore == ("tmp/**",)
    assert (cfg.contract.tags_min, cfg.contract.tags_max) == (1, 8)
    assert cfg.contract.required == ("title",)
    assert cfg.contract.non_empty_strings == ("title", "type", "status")
    assert cfg.search.stopwords == ("de", "la")
    assert dict(cfg.search.folder_weights) == {"daily/**": 0.5}
    assert cfg.search.typo is False
    assert cfg.search.weight_title == 10.0
    assert isinstance(cfg.search.weight_title, float)
    assert cfg.limits.read_max_bytes == 4096
    assert cfg.proposals.ttl_seconds == 60
    assert cfg.rerank.enabled is True


BAD: list[tuple[dict[str, Any], str]] = [
    ({"typo": 1}, "typo"),
    ({"privat": ["x/**"]}, "privat"),
    ({"search": {"typo": 1}}, "search.typo"),
    ({"search": {"stopword": ["x"]}}, "search.stopword"),
    ({"contract": {"tags_min": "two"}}, "contract.tags_min"),
    ({"contract": {"tags_min": True}}, "contract.tags_min"),
    ({"contract": {"tags_min": 2.0}}, "contract.tags_min"),
    ({"contract": {"tags_max": -1}}, "contract.tags_max"),
    ({"contract": {"tags_max": 101}}, "contract.tags_max"),
    ({"contract": {"tag_pattern": "([a-z"}}, "contract.tag_pattern"),
    ({"contract": {"tag_pattern": 5}}, "contract.tag_pattern"),
    ({"contract": {"required": "title"}}, "contract.required"),
    ({"contract": {"required": ["title", 3]}}, "contract.required"),
    ({"contract": {"max_frontmatter_bytes": 10}}, "contract.max_frontmatter_bytes"),
    ({"contract": {"tags_min": 6, "tags_max": 5}}, "contract.tags_min"),
    ({"private": "x"}, "private"),
    ({"private": [""]}, "private"),
    ({"private": ["ok/**", 3]}, "private"),
    ({"protected": {"a": 1}}, "protected"),
    ({"ignore": [" "]}, "ignore"),
    ({"search": {"folder_cap": 0}}, "search.folder_cap"),
    ({"search": {"weight_title": -1}}, "search.weight_title"),
    ({"search": {"weight_title": float("nan")}}, "search.weight_title"),
    ({"search": {"weight_title": float("inf")}}, "search.weight_title"),
    ({"search": {"snippet_chars": 10}}, "search.snippet_chars"),
    ({"search": {"folder_weights": ["logs/**"]}}, "search.folder_weights"),
    ({"search": {"folder_weights": {"logs/**": 11}}}, "search.folder_weights.logs/**"),
    ({"search": {"folder_weights": {"logs/**": "low"}}}, "search.folder_weights.logs/**"),
    ({"search": 1}, "search"),
    ({"contract": ["tags_min"]}, "contract"),
    ({"limits": {"read_max_bytes": 1}}, "limits.read_max_bytes"),
    ({"limits": {"nope": 1}}, "limits.nope"),
    ({"proposals": {"ttl_seconds": 5}}, "proposals.ttl_seconds"),
    ({"proposals": {"ttl": 60}}, "proposals.ttl"),
    ({"rerank": {"enabled": "yes"}}, "rerank.enabled"),
    ({"rerank": {"url": 1}}, "rerank.url"),
    ({"rerank": {"shortlist": 1}}, "rerank.shortlist"),
]


@pytest.mark.parametrize(("data", "key"), BAD, ids=[k for _, k in BAD])
def test_a_bad_config_raises_an_error_naming_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert key in str(info.value)
    assert key in info.value.key
    assert isinstance(info.value, InvalidArgument)
    assert info.value.to_object()["error"] == "invalid_argument"
    assert info.value.to_object()["key"] == info.value.key


@pytest.mark.parametrize(("key", "glob"), [("private", "notes/[z-a]*.md"), ("ignore", "a[!]b/**")])
def test_a_glob_that_cannot_be_compiled_is_a_config_error_naming_the_key(
    key: str, glob: str
) -> None:
    # Otherwise the bad glob passes startup and raises re.error on the first path it meets.
    with pytest.raises(ConfigError) as info:
        parse_config({key: [glob]})
    assert info.value.key == key


def test_a_toml_document_round_trips_through_parse_config() -> None:
    text = """
private = ["diary/**"]

[contract]
tags_min = 1
required = ["title", "type", "status", "tags"]

[search]
owner_names = ["ada"]

[search.folder_weights]
"logs/**" = 0.2
"""
    cfg = parse_config(tomllib.loads(text))
    assert cfg.contract.tags_min == 1
    assert cfg.search.owner_names == ("ada",)
    assert dict(cfg.search.folder_weights) == {"logs/**": 0.2}


def test_load_config_without_hoard_toml_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_load_config_reads_hoard_toml(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("[proposals]\nttl_seconds = 120\n", encoding="utf-8")
    assert load_config(tmp_path).proposals.ttl_seconds == 120


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"[contract\ntags_min = 1\n", id="unclosed-table"),
        pytest.param(b"private = [\n", id="unclosed-array"),
        pytest.param(b"a = 1\na = 2\n", id="duplicate-key"),
        pytest.param(b"tags_min = \xff\n", id="not-utf8"),
    ],
)
def test_load_config_with_invalid_toml_raises_a_config_error(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / CONFIG_NAME).write_bytes(content)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert CONFIG_NAME in str(info.value)


@pytest.mark.parametrize("key", sorted(RETIRED_SEARCH_KEYS))
def test_a_ranking_internal_left_in_hoard_toml_loads_with_a_warning_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, key: str
) -> None:
    (tmp_path / CONFIG_NAME).write_text(f"[search]\n{key} = 0\ntypo = false\n", encoding="utf-8")

    with caplog.at_level(logging.WARNING, logger="hoard.config"):
        cfg = load_config(tmp_path)

    assert cfg.search.typo is False  # the rest of the file still counts
    assert cfg.search.ranking == RankingSettings()  # the old value is ignored
    [message] = [r.getMessage() for r in caplog.records]
    assert f"search.{key} is no longer configurable" in message


def test_the_ranking_internals_are_not_in_the_documented_schema() -> None:
    assert RETIRED_SEARCH_KEYS.isdisjoint(SCHEMA["search"])
    assert not any(f"search.{k}`" in render_config_reference() for k in RETIRED_SEARCH_KEYS)


def test_load_config_with_a_bad_value_names_the_key(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text('[search]\ntypo = "sometimes"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.key == "search.typo"


def test_config_docs_mention_every_key_in_the_schema() -> None:
    docs = config_docs()
    for section, keys in SCHEMA.items():
        for key in keys:
            shown = f"{section}.{key}" if section else key
            assert f"`{shown}`" in docs, shown


def test_config_docs_show_defaults_as_toml() -> None:
    docs = config_docs()
    assert '| `private` | `["personal-notes/**"]` |' in docs
    assert "| `contract.tags_min` | `2` |" in docs
    assert "| `search.typo` | `true` |" in docs
    assert "| `proposals.ttl_seconds` | `604800` |" in docs


def test_every_schema_key_is_a_field_with_a_default() -> None:
    for section, keys in SCHEMA.items():
        for key in keys:
            holder = Config() if not section else getattr(Config(), section)
            assert hasattr(holder, key), f"{section}.{key}"


def test_docs_config_md_is_the_generated_reference() -> None:
    """docs/config.md is `make docs` output: a key added to the schema without regenerating
    the page fails here."""
    page = Path(__file__).resolve().parents[2] / "docs" / "config.md"
    assert page.read_text(encoding="utf-8") == render_config_reference()
