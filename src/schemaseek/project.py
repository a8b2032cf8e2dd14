"""``schemaseek.toml``: several named sources (GraphQL and SQL together), a glossary, settings.

    glossary = "glossary.json"
    questions = "questions.jsonl"   # labelled questions: eval --config, the workbench

    [[sources]]
    name = "api"
    type = "graphql"
    sdl = "schema.graphql"          # or: introspection = "introspection.json",
                                    # or: url = "https://api.example.com/graphql"
    headers = {Authorization = "env:API_TOKEN"}   # for url; env:VAR reads the environment

    [[sources]]
    name = "warehouse"
    type = "sql"
    url = "postgresql+psycopg://reader@db/analytics"
    schemas = ["public", "sales"]
    allow = ["sales."]              # table id prefixes, or "re:<regex>"
    block = ["re:_backup$"]         # added to the default scratch-name blocklist

    [[sources]]
    name = "facts"
    type = "snowflake"              # (a snowflake:// url with type "sql" is the same)
    url = "snowflake://reader:env:SNOWFLAKE_PASSWORD@acct/FACTS?warehouse=WH"
    allow = ["FACTS.{{env}}."]      # {{env}}: `environment` below, else the service's
    environment = "PROD"
    account_usage = "auto"          # ACCOUNT_USAGE when the role may read it
    poll_interval_s = 3600          # this source's own polling (default: the service's)

    [search]
    rrf_k = 25

    [service]                       # read by ``schemaseek serve`` only
    port = 8081

Relative paths are resolved against the file's folder. :func:`load_project` is the one reader of
this file: every command and the service call it, so every one of them rejects the same mistakes
(an unknown key, a source without a location, two sources of one name).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from schemaseek.config import SearchSettings
from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary, load_glossary, resolve_placeholders
from schemaseek.sources.base import SourceSchema

__all__ = ["ProjectConfig", "SourceConfig", "load_project", "load_source"]


class SourceConfig(BaseModel):
    """One source declared in ``schemaseek.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    type: Literal["graphql", "sql", "snowflake"]
    sdl: str | None = None
    introspection: str | None = None
    url: str | None = None
    schemas: tuple[str, ...] = ()
    headers: dict[str, str] = {}
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    environment: str | None = None
    # polling of this source (default: the service's) and its fetch timeout
    poll_interval_s: float | None = Field(default=None, gt=0)
    poll_jitter_max_s: float | None = Field(default=None, ge=0)
    timeout_s: float | None = Field(default=None, gt=0)
    max_columns: int | None = Field(default=None, ge=1)
    # snowflake: which metadata views, and how far ACCOUNT_USAGE polls look back
    account_usage: Literal["auto"] | bool = "auto"
    usage_views: str = "SNOWFLAKE.ACCOUNT_USAGE"
    catalog_views: str = "INFORMATION_SCHEMA"
    usage_lag_s: float | None = Field(default=None, ge=0)

    @property
    def kind(self) -> Literal["graphql", "sql", "snowflake"]:
        """``snowflake`` also for a ``sql`` source whose URL is ``snowflake://``."""
        if self.type == "sql" and (self.url or "").startswith("snowflake"):
            return "snowflake"
        return self.type

    def filters(self, environment: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``allow`` and ``block`` with ``{{env}}`` resolved (this source's environment
        first, else ``environment``)."""
        values = {"env": env} if (env := self.environment or environment) else {}
        return (
            tuple(resolve_placeholders(a, values) for a in self.allow),
            tuple(resolve_placeholders(b, values) for b in self.block),
        )

    @model_validator(mode="after")
    def _one_location(self) -> SourceConfig:
        given = [self.sdl, self.introspection, self.url]
        if self.type == "graphql" and sum(g is not None for g in given) != 1:
            raise ValueError(
                f"graphql source {self.name!r} needs exactly one of sdl, introspection, url"
            )
        if self.type in ("sql", "snowflake") and not self.url:
            raise ValueError(f"{self.type} source {self.name!r} needs url")
        return self


class ProjectConfig(BaseModel):
    """The whole file; ``base_dir`` is the file's folder, ``file`` the file itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: tuple[SourceConfig, ...]
    glossary: str | None = None
    questions: str | None = None
    search: dict[str, Any] = {}
    service: dict[str, Any] = {}
    base_dir: Path = Path(".")
    file: Path = Path("schemaseek.toml")

    def path(self, relative: str) -> Path:
        """``relative`` resolved against the file's folder (absolute paths stay as they are)."""
        candidate = Path(relative)
        return candidate if candidate.is_absolute() else self.base_dir / candidate

    def glossary_path(self) -> Path | None:
        """Where the file's glossary is, if it names one."""
        return self.path(self.glossary) if self.glossary else None

    def load_glossary(self) -> Glossary:
        """The file's glossary (an empty one when it names none)."""
        where = self.glossary_path()
        return load_glossary(where) if where is not None else Glossary()

    def questions_path(self) -> Path | None:
        """Where the file's labelled questions are (``{"id", "question", "gold"}`` JSONL)."""
        return self.path(self.questions) if self.questions else None

    def settings(self) -> SearchSettings:
        """The file's ``[search]`` table as settings (``SCHEMASEEK_*`` fill in the rest)."""
        try:
            return SearchSettings(**self.search)
        except Exception as exc:
            raise ConfigError(f"config file {self.file}: [search] {exc}") from None


def load_project(path: str | Path) -> ProjectConfig:
    """Read and validate a ``schemaseek.toml``; errors name the file and the field.

    Raises:
        ConfigError: the file is missing or not TOML, a key or value is invalid, or two
            sources share a name (the message names the duplicate and the file).
    """
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {file} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {file} is not valid TOML: {exc}") from None
    data["base_dir"] = file.resolve().parent
    data["file"] = file
    try:
        project = ProjectConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10]
        )
        raise ConfigError(f"config file {file}: {problems}") from None
    counts = Counter(src.name for src in project.sources)
    repeated = [name for name, count in counts.items() if count > 1]
    if repeated:
        names = ", ".join(repr(name) for name in repeated)
        plural = "s" if len(repeated) > 1 else ""
        raise ConfigError(
            f"config file {file}: duplicate source name{plural} {names} "
            "(each source needs a name of its own)"
        )
    return project


def source_fetcher(
    src: SourceConfig, project: ProjectConfig, environment: str | None = None
) -> Callable[[], SourceSchema]:
    """A function an engine calls on each refresh: a Snowflake source keeps its catalog
    between calls and polls only what changed (:mod:`schemaseek.sources.snowflake_source`);
    the others are read afresh."""
    if src.kind == "snowflake":
        return _snowflake(src, environment)
    return lambda: load_source(src, project, environment)


def _snowflake(src: SourceConfig, environment: str | None) -> Callable[[], SourceSchema]:
    from schemaseek.sources.snowflake_source import SnowflakeSource

    assert src.url is not None
    allow, block = src.filters(environment)
    usage = None if src.account_usage == "auto" else bool(src.account_usage)
    return SnowflakeSource(
        src.url, src.name, account_usage=usage, usage_views=src.usage_views,
        catalog_views=src.catalog_views, usage_lag_s=src.usage_lag_s, schemas=src.schemas,
        allow=allow, block=block, max_columns=src.max_columns, timeout_s=src.timeout_s,
    )  # fmt: skip


def load_source(
    src: SourceConfig, project: ProjectConfig, environment: str | None = None
) -> SourceSchema:
    """Read ``src`` now (files re-read, endpoints and databases queried afresh)."""
    if src.kind == "snowflake":
        return _snowflake(src, environment)()
    if src.type == "graphql":
        from schemaseek.sources.graphql import load_introspection, load_sdl

        if src.sdl is not None:
            return load_sdl(project.path(src.sdl), src.name)
        if src.url is not None:
            from schemaseek.sources.introspect import load_url

            if src.timeout_s is not None:
                return load_url(src.url, src.name, headers=src.headers, timeout=src.timeout_s)
            return load_url(src.url, src.name, headers=src.headers)
        assert src.introspection is not None
        return load_introspection(project.path(src.introspection), src.name)
    from schemaseek.sources.sql import load_sql

    assert src.url is not None
    allow, block = src.filters(environment)
    return load_sql(
        src.url, src.name, src.schemas or None, allow=allow, block=block,
        max_columns=src.max_columns,
    )  # fmt: skip
