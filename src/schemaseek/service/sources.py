"""What ``serve`` serves: one fetch function per source (re-run on every refresh), the
glossary and the file's ``[search]``/``[service]`` tables.

Sources come from ``--demo`` or a ``schemaseek.toml``, read by
:func:`schemaseek.project.load_project` (the one reader every command uses). Without either,
``./schemaseek.toml`` is used when it exists, else the demo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemaseek.errors import ConfigError
from schemaseek.evaluation.datasets import Question, load_graphql_questions
from schemaseek.glossary import Glossary
from schemaseek.project import ProjectConfig, SourceConfig, load_project, load_source
from schemaseek.sources.base import SourceSchema

__all__ = ["ServePlan", "SourcePlan", "plan_sources"]

DEFAULT_CONFIG = Path("schemaseek.toml")


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """A source's name and how to read it (again)."""

    name: str
    fetch: Callable[[], SourceSchema]


@dataclass(slots=True)
class ServePlan:
    """Sources, glossary (and where it came from), labelled questions (for the workbench's
    eval page and glossary dry runs) and the file's tables."""

    label: str
    sources: list[SourcePlan]
    glossary: Glossary
    glossary_file: Path | None = None
    search_table: dict[str, Any] = field(default_factory=dict)
    service_table: dict[str, Any] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)


def plan_sources(
    demo: bool = False, config: Path | None = None, questions: Path | None = None
) -> ServePlan:
    """The plan for ``--demo`` or ``--config FILE`` (see the module docstring); ``questions``
    (labelled JSONL) replaces the demo's or the file's ``questions``."""
    if demo and config is not None:
        raise ConfigError("choose --demo or --config, not both")
    if config is None and not demo and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    if config is None:
        from schemaseek.sources.demo import (
            demo_glossary,
            demo_graphql,
            demo_labelled_questions,
            demo_sql,
        )

        plan = ServePlan(
            "demo",
            [SourcePlan("music_api", demo_graphql), SourcePlan("music_db", demo_sql)],
            demo_glossary(),
            questions=demo_labelled_questions(),
        )
    else:
        plan = _from_file(config)
    if questions is not None:
        plan.questions = load_graphql_questions(questions)
    return plan


def _from_file(path: Path) -> ServePlan:
    project = load_project(path)
    where = project.questions_path()
    return ServePlan(
        str(path),
        [SourcePlan(s.name, _fetcher(s, project)) for s in project.sources],
        project.load_glossary(),
        project.glossary_path(),
        dict(project.search),
        dict(project.service),
        load_graphql_questions(where) if where is not None else [],
    )


def _fetcher(src: SourceConfig, project: ProjectConfig) -> Callable[[], SourceSchema]:
    """A function that reads ``src`` afresh (files are re-read, endpoints re-queried)."""

    def fetch() -> SourceSchema:
        return load_source(src, project)

    return fetch
