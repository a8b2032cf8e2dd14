"""``schemaseek.toml``: several named sources (GraphQL and SQL together), a glossary, settings.

    glossary = "glossary.json"

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

    [search]
    rrf_k = 25

Relative paths are resolved against the file's folder.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from schemaseek.errors import ConfigError


class SourceConfig(BaseModel):
    """One source declared in ``schemaseek.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    type: Literal["graphql", "sql"]
    sdl: str | None = None
    introspection: str | None = None
    url: str | None = None
    schemas: tuple[str, ...] = ()
    headers: dict[str, str] = {}
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _one_location(self) -> SourceConfig:
        given = [self.sdl, self.introspection, self.url]
        if self.type == "graphql" and sum(g is not None for g in given) != 1:
            raise ValueError(
                f"graphql source {self.name!r} needs exactly one of sdl, introspection, url"
            )
        if self.type == "sql" and not self.url:
            raise ValueError(f"sql source {self.name!r} needs url")
        return self


class ProjectConfig(BaseModel):
    """The whole file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: tuple[SourceConfig, ...]
    glossary: str | None = None
    search: dict[str, Any] = {}
    base_dir: Path = Path(".")

    def path(self, relative: str) -> Path:
        candidate = Path(relative)
        return candidate if candidate.is_absolute() else self.base_dir / candidate


def load_project(path: str | Path) -> ProjectConfig:
    """Read and validate a ``schemaseek.toml``; errors name the file and the field."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {file} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {file} is not valid TOML: {exc}") from None
    data["base_dir"] = file.resolve().parent
    try:
        return ProjectConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10]
        )
        raise ConfigError(f"config file {file}: {problems}") from None
