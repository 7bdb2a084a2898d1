"""The schema of ``index.db``: its tables, tokenizer and version (a change of either
rebuilds every index at its next open)."""

from __future__ import annotations

import json

from hoard.core.config import Config

SCHEMA_VERSION = 9
TOKENIZER = "porter unicode61 remove_diacritics 2"

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE notes(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  folder TEXT NOT NULL,
  path_key TEXT NOT NULL,
  stem_key TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  revision TEXT NOT NULL,
  title TEXT NOT NULL,
  rank_mult REAL NOT NULL,
  fm_json TEXT,
  problems TEXT,
  type_key TEXT,
  status_key TEXT,
  updated TEXT
);
CREATE INDEX notes_path_key ON notes(path_key);
CREATE INDEX notes_updated ON notes(updated);
CREATE TABLE note_tags(
  note INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  tag_key TEXT NOT NULL,
  source TEXT NOT NULL
);
CREATE INDEX note_tags_key ON note_tags(tag_key, tag);
CREATE INDEX note_tags_note ON note_tags(note, tag_key);
CREATE INDEX notes_stem_key ON notes(stem_key);
CREATE INDEX notes_folder ON notes(folder);
CREATE INDEX notes_mtime ON notes(mtime_ns);
CREATE VIRTUAL TABLE notes_fts USING fts5(
  path, title, tags, body, frontmatter, alt, title_seg, body_seg,
  tokenize = '{TOKENIZER}'
);
CREATE VIRTUAL TABLE notes_vocab USING fts5vocab(notes_fts, 'row');
CREATE VIRTUAL TABLE words USING fts5(
  title, body, content = '', detail = none, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE words_vocab USING fts5vocab(words, 'row');
CREATE VIRTUAL TABLE titles USING fts5(
  title, tags, content = '', tokenize = '{TOKENIZER}'
);
CREATE TABLE links(
  src INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
  target TEXT NOT NULL,
  target_key TEXT NOT NULL,
  stem_key TEXT NOT NULL,
  name_key TEXT NOT NULL,
  heading TEXT,
  alias TEXT,
  embed INTEGER NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX links_src ON links(src);
CREATE INDEX links_target_key ON links(target_key);
CREATE INDEX links_stem_key ON links(stem_key);
CREATE INDEX links_name_key ON links(name_key);
CREATE TABLE note_names(
  note INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL,
  kind TEXT NOT NULL
);
CREATE INDEX note_names_key ON note_names(name_key);
CREATE INDEX note_names_note ON note_names(note);
"""


def config_fingerprint(config: Config) -> str:
    """What, in the config, changes the index's content: a change forces a rebuild."""
    s = config.search
    return json.dumps(
        {
            "v": SCHEMA_VERSION,
            "title_keys": list(s.title_keys),
            "folder_weights": dict(s.folder_weights),
            "frontmatter_keys": list(s.frontmatter_keys),
            "ignore": list(config.ignore),
            "index_max_bytes": config.limits.index_max_bytes,
        },
        sort_keys=True,
    )
