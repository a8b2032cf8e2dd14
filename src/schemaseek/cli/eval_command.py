"""The ``eval`` command: score schemaseek on labelled questions (SQL datasets or GraphQL sets)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from schemaseek.cli.eval_gates import (
    BaselineOpt,
    FailUnderOpt,
    GateSpec,
    JunitOpt,
    ToleranceOpt,
    gates_json,
    print_gates,
)
from schemaseek.cli.output import build_progress, print_json, stderr, stdout
from schemaseek.documents import DocKind
from schemaseek.errors import ConfigError

if TYPE_CHECKING:  # imported when the command runs (SQLAlchemy, numpy ...): start-up stays light
    from schemaseek.embedding.base import EmbeddingProvider
    from schemaseek.embedding.disk_cache import DiskCachedProvider
    from schemaseek.evaluation.datasets import Question
    from schemaseek.evaluation.runner import EvalResult
    from schemaseek.glossary import Glossary
    from schemaseek.sources.base import SourceSchema


class ModeChoice(StrEnum):
    """Search modes ``eval`` can score."""

    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"


class ScopeChoice(StrEnum):
    """What a question is ranked against."""

    PER_SOURCE = "per-source"
    POOLED = "pooled"


class GoldChoice(StrEnum):
    """Which gold labels of a SQL dataset to score against."""

    TABLES = "tables"
    COLUMNS = "columns"


@dataclass(frozen=True, slots=True)
class _Inputs:
    name: str
    sources: list[SourceSchema]
    questions: list[Question]
    gold: str
    glossary: Glossary | None = None


def eval_command(
    dataset: Annotated[
        Path | None,
        typer.Option("--dataset", help="Dataset directory (catalog + queries files)."),
    ] = None,
    catalog: Annotated[
        Path | None,
        typer.Option("--catalog", help="catalog.jsonl[.xz], or a dataset directory."),
    ] = None,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="Questions JSONL (SQL or GraphQL format).")
    ] = None,
    gold: Annotated[
        GoldChoice, typer.Option("--gold", help="SQL gold: tables, or columns (table level).")
    ] = GoldChoice.TABLES,
    sdl: Annotated[Path | None, typer.Option("--sdl", help="GraphQL SDL file.")] = None,
    introspection: Annotated[
        Path | None, typer.Option("--introspection", help="GraphQL introspection JSON.")
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="The embedded demo and its labelled questions.")
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="schemaseek.toml: its sources, glossary and questions."),
    ] = None,
    glossary: Annotated[Path | None, typer.Option("--glossary", help="Glossary JSON.")] = None,
    scope: Annotated[
        ScopeChoice, typer.Option("--scope", help="Rank each question's own source, or all.")
    ] = ScopeChoice.PER_SOURCE,
    mode: Annotated[
        list[ModeChoice] | None, typer.Option("--mode", help="Mode to score (repeatable).")
    ] = None,
    kind: Annotated[
        list[DocKind] | None, typer.Option("--kind", help="Rank only these kinds (repeatable).")
    ] = None,
    limit_queries: Annotated[
        int | None,
        typer.Option("--limit-queries", min=1, help="A fixed sample of N questions (seed 0)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="Where document vectors are cached (default ~/.cache/schemaseek/embeddings).",
        ),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Embed every document again.")
    ] = False,
    fail_under: FailUnderOpt = None,
    baseline: BaselineOpt = None,
    tolerance: ToleranceOpt = 0.0,
    junit: JunitOpt = None,
) -> None:
    """Score retrieval on labelled questions: recall@k, all_gold@10, hit@k, MRR, NDCG@10, latency.

    Exit codes: 0 when every gate holds (or none is given), 1 when a --fail-under floor or the
    --baseline comparison fails, 2 for usage errors (bad options, unreadable files).

    Example: schemaseek eval --dataset ../shared/datasets/bird-dev --mode keyword --mode hybrid

    Example: schemaseek eval --sdl gitlab.graphql --queries gitlab.jsonl --kind graphql_root_field

    Example: schemaseek eval --demo --fail-under recall@10=0.8 --baseline base.json --junit eval.xml
    """
    from schemaseek.config import SearchSettings, default_cache_dir
    from schemaseek.embedding.disk_cache import DiskCachedProvider
    from schemaseek.evaluation.runner import evaluate
    from schemaseek.glossary import Glossary, load_glossary

    gate_spec = GateSpec.of(fail_under, baseline, tolerance)
    choice = _Choice(dataset, catalog, sdl, introspection, demo, config)
    inputs = _inputs(choice, queries, gold, limit_queries)
    modes = [m.value for m in mode] if mode else [ModeChoice.HYBRID.value]
    settings = SearchSettings()
    provider: EmbeddingProvider | None = None
    cache: DiskCachedProvider | None = None
    if any(m != ModeChoice.KEYWORD for m in modes):
        from schemaseek.embedding.factory import provider_from_settings

        provider = provider_from_settings(settings)
        if not no_cache:
            where = cache_dir or default_cache_dir() / "embeddings"
            provider = cache = DiskCachedProvider(provider, where)
    with build_progress() as update:
        result = evaluate(
            inputs.sources,
            inputs.questions,
            dataset=inputs.name,
            modes=modes,
            scope=scope.value,
            kinds=kind or (),
            glossary=load_glossary(glossary) if glossary else inputs.glossary or Glossary(),
            settings=settings,
            provider=provider,
            gold=inputs.gold,
            progress=update,
        )
    gates = gate_spec.check(result)
    if junit is not None:
        from schemaseek.evaluation.junit import write_junit

        write_junit(junit, result, gates)
    if json_out:
        print_json(result.to_json() | gates_json(gates))
    else:
        _print_result(result)
        print_gates(gates)
        if cache is not None:
            stats = cache.stats
            stderr.print(
                f"embedding cache {cache.directory}: {stats.hits} documents read back, "
                f"{stats.misses} embedded"
            )
    if any(not gate.passed for gate in gates):
        raise typer.Exit(1)


@dataclass(frozen=True, slots=True)
class _Choice:
    """Where the sources come from (exactly one is given)."""

    dataset: Path | None
    catalog: Path | None
    sdl: Path | None
    introspection: Path | None
    demo: bool
    config: Path | None


def _inputs(choice: _Choice, queries: Path | None, gold: GoldChoice, limit: int | None) -> _Inputs:
    given = [
        name
        for name, value in (
            ("--dataset", choice.dataset),
            ("--catalog", choice.catalog),
            ("--sdl", choice.sdl),
            ("--introspection", choice.introspection),
            ("--demo", choice.demo or None),
            ("--config", choice.config),
        )
        if value is not None
    ]
    if len(given) != 1:
        raise ConfigError(
            "give exactly one of --dataset, --catalog, --sdl, --introspection, --demo, --config"
            + (f" (got {' and '.join(given)})" if given else "")
        )
    dataset, catalog = choice.dataset, choice.catalog
    if choice.demo or choice.config is not None:
        return _project_inputs(choice.config, queries, gold, limit)
    if choice.sdl is not None or choice.introspection is not None:
        return _graphql_inputs(choice.sdl, choice.introspection, queries, gold, limit)
    from schemaseek.evaluation.datasets import gold_label, load_sql_questions, resolve_dataset
    from schemaseek.sources.catalog import load_catalog

    where = dataset if dataset is not None else catalog
    assert where is not None
    if dataset is not None or where.is_dir():
        files = resolve_dataset(where)
        name, catalog_file, queries_file = files.name, files.catalog, queries or files.queries
    elif queries is None:
        raise ConfigError("--catalog FILE needs --queries FILE")
    else:
        name, catalog_file, queries_file = _stem(where), where, queries
    questions = load_sql_questions(queries_file, gold.value, limit)
    return _Inputs(name, load_catalog(catalog_file), questions, gold_label(gold.value))


def _graphql_inputs(
    sdl: Path | None,
    introspection: Path | None,
    queries: Path | None,
    gold: GoldChoice,
    limit: int | None,
) -> _Inputs:
    from schemaseek.evaluation.datasets import load_graphql_questions
    from schemaseek.sources.graphql import load_introspection, load_sdl

    if queries is None:
        raise ConfigError("--sdl/--introspection need --queries FILE")
    if gold != GoldChoice.TABLES:
        raise ConfigError("--gold applies to SQL datasets only")
    path = sdl if sdl is not None else introspection
    assert path is not None
    source = load_sdl(path, path.stem) if sdl is not None else load_introspection(path, path.stem)
    return _Inputs(_stem(path), [source], load_graphql_questions(queries, limit), "ids")


def _project_inputs(
    config: Path | None, queries: Path | None, gold: GoldChoice, limit: int | None
) -> _Inputs:
    """The demo's, or a ``schemaseek.toml``'s, sources, glossary and labelled questions."""
    from schemaseek.evaluation.datasets import load_graphql_questions, sample

    if gold != GoldChoice.TABLES:
        raise ConfigError("--gold applies to SQL datasets only")
    if config is None:
        from schemaseek.sources.demo import demo_glossary, demo_labelled_questions, demo_sources

        questions = load_graphql_questions(queries, limit) if queries else demo_labelled_questions()
        return _Inputs("demo", demo_sources(), sample(questions, limit), "ids", demo_glossary())
    from schemaseek.project import load_project, load_source

    project = load_project(config)
    where = queries or project.questions_path()
    if where is None:
        raise ConfigError(f"{config} names no questions file; give --queries FILE")
    sources = [load_source(src, project) for src in project.sources]
    questions = load_graphql_questions(where, limit)
    return _Inputs(_stem(config), sources, questions, "ids", project.load_glossary())


def _stem(path: Path) -> str:
    """A file's name without any suffix (``catalog_full.jsonl.xz`` → ``catalog_full``)."""
    return path.name.split(".", 1)[0] or path.name


def _print_result(result: EvalResult) -> None:
    from schemaseek.evaluation.metrics import METRIC_NAMES

    title = (
        f"{result.dataset} — {result.scope}, {result.queries} questions, gold: {result.gold}"
        + (f", {result.skipped} skipped (no gold)" if result.skipped else "")
    )
    table = Table(title=title, title_justify="left")
    table.add_column("metric", style="bold")
    modes = list(result.modes.items())
    for mode, scores in modes:
        table.add_column(mode + (" (degraded)" if scores.degraded else ""), justify="right")
    for name in METRIC_NAMES:
        table.add_row(name, *(f"{scores.metrics[name]:.3f}" for _, scores in modes))
    table.add_row("p50 ms", *(f"{scores.latency_p50_ms:.1f}" for _, scores in modes))
    table.add_row("p95 ms", *(f"{scores.latency_p95_ms:.1f}" for _, scores in modes))
    table.add_row("index s", *(f"{scores.index_s:.2f}" for _, scores in modes))
    stdout.print(table)
