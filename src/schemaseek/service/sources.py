"""What ``serve`` serves: one fetch function per source (re-run on every refresh), the
glossary and the file's ``[search]``/``[service]`` tables.

Sources come from ``--demo`` or a ``schemaseek.toml``, read by
:func:`schemaseek.project.load_project` (the one reader every command uses), plus those the
spec's variables declare (``GRAPHQL_GATEWAY_URL``, ``SNOWFLAKE_ACCOUNT``:
:mod:`schemaseek.service.spec_env`). Without any, ``./schemaseek.toml`` is used when it exists,
else the demo. A Snowflake source keeps its catalog between refreshes and polls only what
changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemaseek.errors import ConfigError
from schemaseek.evaluation.datasets import Question, load_graphql_questions
from schemaseek.glossary import Glossary
from schemaseek.project import ProjectConfig, SourceConfig, load_project, source_fetcher
from schemaseek.service import spec_env
from schemaseek.sources.base import SourceSchema

__all__ = ["ServePlan", "SourcePlan", "plan_sources"]

DEFAULT_CONFIG = Path("schemaseek.toml")


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """A source's name, how to read it (again) and, when it has its own, its polling."""

    name: str
    fetch: Callable[[], SourceSchema]
    poll_interval_s: float | None = None
    poll_jitter_max_s: float | None = None


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

    def source_polls(self, default_jitter: float) -> dict[str, tuple[float, float]]:
        """Source → (interval s, relative jitter) for sources polled on their own schedule."""
        out = {}
        for plan in self.sources:
            if plan.poll_interval_s:
                jitter = default_jitter
                if plan.poll_jitter_max_s is not None:
                    jitter = min(1.0, plan.poll_jitter_max_s / plan.poll_interval_s)
                out[plan.name] = (plan.poll_interval_s, jitter)
        return out


def plan_sources(
    demo: bool = False,
    config: Path | None = None,
    questions: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> ServePlan:
    """The plan for ``--demo`` or ``--config FILE`` and the environment's sources (see the
    module docstring); ``questions`` (labelled JSONL) replaces the demo's or the file's."""
    env = os.environ if env is None else env
    if demo and config is not None:
        raise ConfigError("choose --demo or --config, not both")
    declared = spec_env.environment_sources(env)
    if config is None and not demo and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    if config is not None:
        plan = _from_file(config, declared, env)
    elif declared and not demo:
        project = ProjectConfig(sources=tuple(declared))
        plan = ServePlan("environment", _plans(project, declared, env, {}), Glossary())
    else:
        from schemaseek.sources.demo import (
            demo_glossary,
            demo_graphql,
            demo_labelled_questions,
            demo_sql,
        )

        project = ProjectConfig(sources=tuple(declared))
        plan = ServePlan(
            "demo",
            [SourcePlan("music_api", demo_graphql), SourcePlan("music_db", demo_sql)],
            demo_glossary(),
            questions=demo_labelled_questions(),
        )
        plan.sources += _plans(project, declared, env, {})
    if questions is not None:
        plan.questions = load_graphql_questions(questions)
    names = [s.name for s in plan.sources]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"two sources are named {', '.join(repeated)} (file and environment)")
    return plan


def _from_file(path: Path, declared: Sequence[SourceConfig], env: Mapping[str, str]) -> ServePlan:
    project = load_project(path)
    where = project.questions_path()
    sources = [*project.sources, *declared]
    return ServePlan(
        str(path),
        _plans(project, sources, env, project.service),
        project.load_glossary(),
        project.glossary_path(),
        dict(project.search),
        dict(project.service),
        load_graphql_questions(where) if where is not None else [],
    )


def _plans(
    project: ProjectConfig,
    sources: Sequence[SourceConfig],
    env: Mapping[str, str],
    service_table: Mapping[str, Any],
) -> list[SourcePlan]:
    environment = spec_env.environment_of(env, service_table)
    plans = []
    for src in sources:
        src = spec_env.with_poll_defaults(src, env)
        fetch = source_fetcher(src, project, environment)
        plans.append(SourcePlan(src.name, fetch, src.poll_interval_s, src.poll_jitter_max_s))
    return plans
