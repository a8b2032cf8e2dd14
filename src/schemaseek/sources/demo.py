"""The embedded demo: a music rights and distribution company, as SQL catalog and GraphQL API."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary, parse_glossary
from schemaseek.sources.base import SourceSchema

if TYPE_CHECKING:
    from schemaseek.evaluation.datasets import Question

GRAPHQL_SOURCE = "music_api"
SQL_SOURCE = "music_db"


def _read(name: str) -> str:
    return resources.files("schemaseek.demo").joinpath(name).read_text(encoding="utf-8")


def demo_graphql() -> SourceSchema:
    """The demo GraphQL API (``abacusContract``, ``DistributionDelivery`` ...)."""
    from graphql import build_schema

    from schemaseek.sources.graphql import from_schema

    return from_schema(build_schema(_read("schema.graphql")), GRAPHQL_SOURCE)


def demo_sql() -> SourceSchema:
    """The demo SQLite catalog, built in memory from the shipped DDL."""
    import sqlalchemy
    from sqlalchemy.pool import StaticPool

    from schemaseek.sources.sql import load_sql

    script = _read("music.sql")

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.executescript(script)
        return conn

    engine = sqlalchemy.create_engine("sqlite://", creator=connect, poolclass=StaticPool)
    try:
        return load_sql("sqlite://", SQL_SOURCE, engine=engine)
    finally:
        engine.dispose()


def demo_files() -> tuple[Path, Path]:
    """The shipped files behind the two demo sources (GraphQL SDL, SQL DDL), for fingerprints
    (an installed package keeps them as plain files)."""
    root = Path(str(resources.files("schemaseek.demo")))
    return root / "schema.graphql", root / "music.sql"


def demo_sources() -> list[SourceSchema]:
    """Both demo sources: GraphQL and SQL, indexed together."""
    return [demo_graphql(), demo_sql()]


def demo_glossary() -> Glossary:
    """The demo's curated glossary."""
    return parse_glossary(json.loads(_read("glossary.json")), "demo glossary")


#: The ``schemaseek.toml`` :func:`export_demo` writes (the README's sample, word for word).
DEMO_PROJECT = """\
glossary = "glossary.json"

[[sources]]
name = "api"
type = "graphql"
sdl = "schema.graphql"

[[sources]]
name = "warehouse"
type = "sql"
url = "sqlite:///music.db"

[search]
rrf_k = 25
"""

EXPORTED = ("schema.graphql", "music.db", "glossary.json", "schemaseek.toml")


def export_demo(directory: str | Path) -> list[Path]:
    """Write the demo as files into ``directory`` (created if needed): ``schema.graphql``, the
    SQLite database ``music.db`` (from the shipped DDL), ``glossary.json`` and a
    ``schemaseek.toml`` naming them — what the README's examples read. Returns the paths.

    Raises:
        ConfigError: one of the files exists already (nothing is overwritten).
    """
    folder = Path(directory)
    paths = [folder / name for name in EXPORTED]
    existing = [str(p) for p in paths if p.exists()]
    if existing:
        raise ConfigError(f"{', '.join(existing)} exists already; choose another folder")
    folder.mkdir(parents=True, exist_ok=True)
    schema, database, glossary, project = paths
    schema.write_text(_read("schema.graphql"), encoding="utf-8")
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.executescript(_read("music.sql"))
        conn.commit()
    glossary.write_text(_read("glossary.json"), encoding="utf-8")
    project.write_text(DEMO_PROJECT, encoding="utf-8")
    return paths


def demo_questions() -> list[str]:
    """Sample questions the demo answers."""
    questions: list[str] = json.loads(_read("questions.json"))["questions"]
    return questions


def demo_labelled_questions() -> list[Question]:
    """The demo's labelled questions (``labelled.jsonl``: id, question, gold ids), which
    ``serve --demo`` registers for the workbench and ``eval --demo`` scores."""
    from schemaseek.evaluation.datasets import load_graphql_questions

    with resources.as_file(resources.files("schemaseek.demo").joinpath("labelled.jsonl")) as path:
        return load_graphql_questions(path)
