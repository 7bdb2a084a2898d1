"""The search phase's queries: a judged query file's when the vault has one, else a mixed
set sampled from the vault itself (note titles as known-item queries, the same with a typo,
and multi-word queries)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

WORD = re.compile(r"[^\W_]+")
QUERY_FILES = ("queries-known-item.jsonl", "queries.jsonl")


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    kind: str
    relevant: frozenset[str] = field(default_factory=frozenset)


def find_query_file(vault: Path) -> Path | None:
    """A judged query file beside the vault (``<set>/notes`` + ``<set>/queries*.jsonl``, the
    evaluation-data layout), used only when its judged paths exist in the vault."""
    for name in QUERY_FILES:
        path = vault.parent / name
        if path.is_file() and load_judged(path, vault, limit=20):
            return path
    return None


def load_judged(path: Path, vault: Path, limit: int | None = None) -> list[Query]:
    """Queries of a JSON-lines file (``query``, ``relevant`` {path: grade}, ``kind``) whose
    relevant notes exist under ``vault``; the first ``limit`` lines at most."""
    out: list[Query] = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if limit is not None and i >= limit:
                break
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            text, rel = obj.get("query"), obj.get("relevant")
            if not isinstance(text, str) or not text.strip() or not isinstance(rel, dict):
                continue
            if not any((vault / p).is_file() for p in rel):
                continue
            out.append(Query(text, str(obj.get("kind") or "judged"), frozenset(rel)))
    return out


def misspell(word: str, rng: random.Random) -> str:
    """One typo: swap two adjacent inner letters, or drop an inner letter."""
    i = rng.randrange(1, len(word) - 2)
    if rng.random() < 0.5 and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + word[i + 1 :]


def with_typo(query: str, rng: random.Random) -> str | None:
    words = query.split()
    long_ones = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not long_ones:
        return None
    i = rng.choice(long_ones)
    words[i] = misspell(words[i], rng)
    return " ".join(words)


def sampled(titles: Sequence[tuple[str, str]], count: int, rng: random.Random) -> list[Query]:
    """A mixed set from ``(path, title)`` pairs: about 60 % titles (known-item), 20 % titles
    with one typo, 20 % multi-word queries of words from two titles."""
    usable = [(p, t) for p, t in titles if WORD.search(t)]
    if not usable:
        return [Query("note", "single-word")]
    count = max(count, 5)
    n_typo = n_multi = count // 5
    n_known = count - n_typo - n_multi
    out = [
        Query(t, "known-item", frozenset({p}))
        for p, t in (rng.choice(usable) for _ in range(n_known))
    ]
    typo_sources = [(p, t) for p, t in usable if with_typo(t, random.Random(0))]
    for _ in range(n_typo if typo_sources else 0):
        p, t = rng.choice(typo_sources)
        out.append(Query(with_typo(t, rng) or t, "misspelled", frozenset({p})))
    words = sorted({w.lower() for _, t in usable for w in WORD.findall(t) if len(w) >= 4})
    for _ in range(n_multi if len(words) >= 3 else 0):
        out.append(Query(" ".join(rng.sample(words, 3)), "multi-word"))
    rng.shuffle(out)
    return out


def build(
    vault: Path,
    titles: Sequence[tuple[str, str]],
    count: int,
    rng: random.Random,
    query_file: Path | None = None,
) -> tuple[list[Query], str]:
    """``count`` queries and where they came from (a file path, or ``sampled``)."""
    path = query_file or find_query_file(vault)
    if path is not None:
        judged = load_judged(path, vault)
        if judged:
            if len(judged) >= count:
                return rng.sample(judged, count), str(path)
            return [rng.choice(judged) for _ in range(count)], str(path)
    return sampled(titles, count, rng), "sampled from note titles"


def kinds(queries: Sequence[Query]) -> dict[str, int]:
    out: dict[str, int] = {}
    for q in queries:
        out[q.kind] = out.get(q.kind, 0) + 1
    return out
