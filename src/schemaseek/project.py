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
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from schemaseek.config import SearchSettings
from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary, load_glossary
from schemaseek.sources.base import SourceSchema

__all__ = ["ProjectConfig", "SourceConfig", "load_project", "load_source"]


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


def load_source(src: SourceConfig, project: ProjectConfig) -> SourceSchema:
    """Read ``src`` now (files re-read, endpoints and databases queried afresh)."""
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
