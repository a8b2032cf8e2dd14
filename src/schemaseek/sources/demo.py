"""The embedded demo: a music rights and distribution company, as SQL catalog and GraphQL API."""

from __future__ import annotations

import json
import sqlite3
from importlib import resources
from typing import TYPE_CHECKING

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


def demo_sources() -> list[SourceSchema]:
    """Both demo sources: GraphQL and SQL, indexed together."""
    return [demo_graphql(), demo_sql()]


def demo_glossary() -> Glossary:
    """The demo's curated glossary."""
    return parse_glossary(json.loads(_read("glossary.json")), "demo glossary")


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
