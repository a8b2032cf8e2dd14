"""Source selection shared by every command: demo, SDL, introspection, database, config file.

:func:`plan` says what to serve without reading the sources (a file is read only when its
fingerprint says it changed: :mod:`schemaseek.engine.local`); :func:`resolve` reads them all
(for the commands that need every document now: glossary lint, the snapshot commands).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from schemaseek.errors import ConfigError, SourceError

if TYPE_CHECKING:  # imported when a command runs, so that start-up stays light
    from schemaseek.config import SearchSettings
    from schemaseek.engine.local import LocalSource
    from schemaseek.glossary import Glossary
    from schemaseek.project import ProjectConfig, SourceConfig
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


@dataclass(frozen=True, slots=True)
class PlannedSources:
    """The sources to serve (not read yet), glossary and settings."""

    label: str
    sources: list[LocalSource]
    glossary: Glossary
    settings: SearchSettings


def resolve(options: SourceOptions) -> ResolvedSources:
    """Turn options into sources, every one read now (see :func:`plan`)."""
    planned = plan(options)
    sources = []
    for source in planned.sources:
        schema = source.load()
        if not schema.documents:
            raise SourceError(_nothing_in(schema))
        sources.append(schema)
    return ResolvedSources(planned.label, sources, planned.glossary, planned.settings)


def plan(options: SourceOptions) -> PlannedSources:
    """Turn options into sources to serve. Without a source option: ./schemaseek.toml, else
    the demo. Databases and endpoints are queried here (their content has no fingerprint
    short of reading it); files are only located."""
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
        from schemaseek.sources.demo import demo_glossary

        label, sources = "demo", _demo()
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
    return PlannedSources(label, sources, glossary, settings)


def _nothing_in(source: SourceSchema) -> str:
    """Why an empty source is an error, and what to try."""
    where = source.raw.get("url") or source.name
    if source.kind != "sql":
        return f"source {source.name!r} ({where}) has no types or fields to index"
    return (
        f"source {source.name!r} ({where}) has no tables to index: check the database, "
        "--schema and --allow/--block"
    )


def _read_now(schema: SourceSchema, origin: str, again: Callable[[], SourceSchema]) -> LocalSource:
    """A source read here (to know it is not empty), handed out once, then read again."""
    from schemaseek.engine.local import LocalSource

    if not schema.documents:
        raise SourceError(_nothing_in(schema))
    first = [schema]

    def load() -> SourceSchema:
        return first.pop() if first else again()

    return LocalSource(schema.name, load, origin)


def _file_source(name: str, path: Path, kind: str, load: Callable[[], SourceSchema]) -> LocalSource:
    """A source read from ``path``, fingerprinted by its bytes, checked when read."""
    from schemaseek.engine.local import LocalSource, file_digest

    def checked() -> SourceSchema:
        schema = load()
        if not schema.documents:
            raise SourceError(_nothing_in(schema))
        return schema

    return LocalSource(name, checked, f"{kind}:{path.resolve()}", file_digest(path))


def _demo() -> list[LocalSource]:
    from schemaseek import __version__
    from schemaseek.engine.local import LocalSource, file_digest
    from schemaseek.sources.demo import demo_files, demo_graphql, demo_sql

    graphql_file, sql_file = demo_files()
    return [
        LocalSource(
            "music_api", demo_graphql, f"demo:music_api@{__version__}", file_digest(graphql_file)
        ),
        LocalSource("music_db", demo_sql, f"demo:music_db@{__version__}", file_digest(sql_file)),
    ]


def _single_source(options: SourceOptions) -> tuple[str, list[LocalSource]]:
    if options.sdl is not None:
        from schemaseek.sources.graphql import load_sdl

        sdl, stem = options.sdl, options.sdl.stem
        return str(sdl), [_file_source(stem, sdl, "sdl", lambda: load_sdl(sdl, stem))]
    if options.introspection is not None:
        from schemaseek.sources.graphql import load_introspection

        path, stem = options.introspection, options.introspection.stem
        load = lambda: load_introspection(path, stem)  # noqa: E731
        return str(path), [_file_source(stem, path, "introspection", load)]
    if options.graphql_url is not None:
        from schemaseek.sources.introspect import load_url

        url, headers = options.graphql_url, options.headers
        schema = load_url(url, headers=headers)
        source = _read_now(
            schema, f"graphql:{schema.raw['url']}", lambda: load_url(url, headers=headers)
        )
        return schema.raw["url"], [source]
    from schemaseek.sources.redact import redact_url
    from schemaseek.sources.sql import load_sql

    assert options.database_url is not None
    database_url = options.database_url

    def read() -> SourceSchema:
        return load_sql(
            database_url,
            schemas=options.schemas or None,
            allow=options.allow,
            block=options.block,
        )

    schema = read()
    where = (
        f"sql:{redact_url(database_url)}|{','.join(options.schemas)}"
        f"|{','.join(options.allow)}|{','.join(options.block)}"
    )
    return schema.name, [_read_now(schema, where, read)]


def _from_config(path: Path) -> tuple[str, list[LocalSource], Glossary, SearchSettings]:
    from schemaseek.project import load_project

    project = load_project(path)
    where = project.glossary_path()
    if where is not None and not where.is_file():
        raise ConfigError(f"config file {path}: glossary file {where} not found")
    sources = [_configured(src, project) for src in project.sources]
    return str(path), sources, project.load_glossary(), project.settings()


def _configured(src: SourceConfig, project: ProjectConfig) -> LocalSource:
    """A source of ``schemaseek.toml``: files are fingerprinted, the rest read now."""
    from schemaseek.project import load_source
    from schemaseek.sources.redact import redact_url

    def read() -> SourceSchema:
        return load_source(src, project)

    file = src.sdl or src.introspection
    if file is not None:
        return _file_source(
            src.name, project.path(file), "sdl" if src.sdl else "introspection", read
        )
    origin = f"{src.type}:{redact_url(src.url)}|{','.join(src.schemas)}|{src.name}"
    return _read_now(read(), origin, read)
