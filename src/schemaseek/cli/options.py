"""Source selection shared by every command: demo, SDL, introspection, database, config file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from schemaseek.errors import ConfigError, SourceError

if TYPE_CHECKING:  # imported when a command runs, so that start-up stays light
    from schemaseek.config import SearchSettings
    from schemaseek.glossary import Glossary
    from schemaseek.sources.base import SourceSchema

DEFAULT_CONFIG = Path("schemaseek.toml")


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """What the user asked for on the command line."""

    demo: bool = False
    sdl: Path | None = None
    introspection: Path | None = None
    database_url: str | None = None
    schemas: tuple[str, ...] = ()
    config: Path | None = None
    graphql_url: str | None = None
    headers: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    glossary: Path | None = None
    no_glossary: bool = False


@dataclass(frozen=True, slots=True)
class ResolvedSources:
    """Resolved sources, glossary and settings."""

    label: str
    sources: list[SourceSchema]
    glossary: Glossary
    settings: SearchSettings


def resolve(options: SourceOptions) -> ResolvedSources:
    """Turn options into sources. Without a source option: ./schemaseek.toml, else the demo."""
    from schemaseek.config import SearchSettings
    from schemaseek.glossary import Glossary, load_glossary

    chosen = [
        name
        for name, given in (
            ("--demo", options.demo),
            ("--sdl", options.sdl is not None),
            ("--introspection", options.introspection is not None),
            ("--database-url", options.database_url is not None),
            ("--graphql-url", options.graphql_url is not None),
            ("--config", options.config is not None),
        )
        if given
    ]
    if len(chosen) > 1:
        raise ConfigError(f"choose one source option, not {' and '.join(chosen)}")
    if options.headers and options.graphql_url is None:
        raise ConfigError("--header applies to --graphql-url only")
    if (options.allow or options.block) and options.database_url is None:
        raise ConfigError("--allow and --block apply to --database-url only")
    config = options.config
    if not chosen and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    use_demo = options.demo or (not chosen and config is None)

    glossary = Glossary()
    settings = SearchSettings()
    if use_demo:
        from schemaseek.sources.demo import demo_glossary, demo_sources

        label, sources = "demo", demo_sources()
        glossary = demo_glossary()
    elif config is not None:
        label, sources, glossary, settings = _from_config(config)
    else:
        label, sources = _single_source(options)
    if options.glossary is not None:
        if not options.glossary.is_file():
            raise ConfigError(f"glossary file {options.glossary} not found")
        glossary = load_glossary(options.glossary)
    if options.no_glossary:
        glossary = Glossary()
    for source in sources:
        if not source.documents:
            raise SourceError(_nothing_in(source))
    return ResolvedSources(label, sources, glossary, settings)


def _nothing_in(source: SourceSchema) -> str:
    """Why an empty source is an error, and what to try."""
    where = source.raw.get("url") or source.name
    if source.kind != "sql":
        return f"source {source.name!r} ({where}) has no types or fields to index"
    return (
        f"source {source.name!r} ({where}) has no tables to index: check the database, "
        "--schema and --allow/--block"
    )


def _single_source(options: SourceOptions) -> tuple[str, list[SourceSchema]]:
    if options.sdl is not None:
        from schemaseek.sources.graphql import load_sdl

        return str(options.sdl), [load_sdl(options.sdl, options.sdl.stem)]
    if options.introspection is not None:
        from schemaseek.sources.graphql import load_introspection

        path = options.introspection
        return str(path), [load_introspection(path, path.stem)]
    if options.graphql_url is not None:
        from schemaseek.sources.introspect import load_url

        schema = load_url(options.graphql_url, headers=options.headers)
        return schema.raw["url"], [schema]
    from schemaseek.sources.sql import load_sql

    assert options.database_url is not None
    schema = load_sql(
        options.database_url,
        schemas=options.schemas or None,
        allow=options.allow,
        block=options.block,
    )
    return schema.name, [schema]


def _from_config(path: Path) -> tuple[str, list[SourceSchema], Glossary, SearchSettings]:
    from schemaseek.project import load_project, load_source

    project = load_project(path)
    where = project.glossary_path()
    if where is not None and not where.is_file():
        raise ConfigError(f"config file {path}: glossary file {where} not found")
    sources = [load_source(src, project) for src in project.sources]
    return str(path), sources, project.load_glossary(), project.settings()
