"""What ``serve`` serves: one fetch function per source (re-run on every refresh), the
glossary and the file's ``[search]``/``[service]`` tables.

Sources come from ``--demo`` or a ``schemaseek.toml`` (the format of :mod:`schemaseek.project`,
plus an optional ``[service]`` table read here). Without either, ``./schemaseek.toml`` is used
when it exists, else the demo.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary, load_glossary
from schemaseek.project import ProjectConfig, SourceConfig
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
    """Sources, glossary (and where it came from) and the file's tables."""

    label: str
    sources: list[SourcePlan]
    glossary: Glossary
    glossary_file: Path | None = None
    search_table: dict[str, Any] = field(default_factory=dict)
    service_table: dict[str, Any] = field(default_factory=dict)


def plan_sources(demo: bool = False, config: Path | None = None) -> ServePlan:
    """The plan for ``--demo`` or ``--config FILE`` (see the module docstring)."""
    if demo and config is not None:
        raise ConfigError("choose --demo or --config, not both")
    if config is None and not demo and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    if config is None:
        from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql

        return ServePlan(
            "demo",
            [SourcePlan("music_api", demo_graphql), SourcePlan("music_db", demo_sql)],
            demo_glossary(),
        )
    return _from_file(config)


def _from_file(path: Path) -> ServePlan:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    service = data.pop("service", {})
    if not isinstance(service, dict):
        raise ConfigError(f"config file {path}: [service] must be a table")
    data["base_dir"] = path.resolve().parent
    try:
        project = ProjectConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10]
        )
        raise ConfigError(f"config file {path}: {problems}") from None
    names = [s.name for s in project.sources]
    if len(set(names)) != len(names):
        raise ConfigError(f"config file {path}: source names must be unique")
    glossary_file = project.path(project.glossary) if project.glossary else None
    glossary = load_glossary(glossary_file) if glossary_file else Glossary()
    return ServePlan(
        str(path),
        [SourcePlan(s.name, _fetcher(s, project)) for s in project.sources],
        glossary,
        glossary_file,
        dict(project.search),
        dict(service),
    )


def _fetcher(src: SourceConfig, project: ProjectConfig) -> Callable[[], SourceSchema]:
    """A function that reads ``src`` afresh (files are re-read, endpoints re-queried)."""

    def fetch() -> SourceSchema:
        if src.type == "graphql":
            from schemaseek.sources.graphql import load_introspection, load_sdl

            if src.sdl is not None:
                return load_sdl(project.path(src.sdl), src.name)
            if src.url is not None:
                from schemaseek.sources.introspect import load_url

                return load_url(src.url, src.name, headers=src.headers)
            assert src.introspection is not None
            return load_introspection(project.path(src.introspection), src.name)
        from schemaseek.sources.sql import load_sql

        assert src.url is not None
        return load_sql(src.url, src.name, src.schemas or None, allow=src.allow, block=src.block)

    return fetch
