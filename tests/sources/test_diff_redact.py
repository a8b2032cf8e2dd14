"""Source diffs (order-free, restated vs changed, tables) and the redaction helper."""

from __future__ import annotations

import logging

import pytest
from graphql import build_schema

from schemaseek.sources.base import SourceSchema
from schemaseek.sources.diff import diff_sources, document_fingerprint
from schemaseek.sources.graphql import from_schema
from schemaseek.sources.redact import (
    MASK,
    Secrets,
    redact_headers,
    redact_url,
    redacting_loggers,
)
from schemaseek.sources.sql import build_sql_schema

SDL = """
type Query { artist(id: ID!, limit: Int = 10): Artist  artists: [Artist!]! }
type Artist { id: ID!  name: String!  albums: [Album!]! }
type Album { id: ID!  title: String! }
"""
REORDERED = """
type Album { title: String!  id: ID! }
type Artist { albums: [Album!]!  name: String!  id: ID! }
type Query { artists: [Artist!]!  artist(limit: Int = 10, id: ID!): Artist }
"""


def gql(sdl: str) -> SourceSchema:
    return from_schema(build_schema(sdl), "api")


def test_reordering_is_no_change() -> None:
    a, b = gql(SDL), gql(REORDERED)
    assert a.schema_hash == b.schema_hash
    diff = diff_sources(a, b)
    assert diff.empty and diff.embed_count == 0 and diff.to_embed(b) == []
    docs = {d.id: d for d in b.documents}
    assert document_fingerprint(docs["Artist"]) == document_fingerprint(
        next(d for d in a.documents if d.id == "Artist")
    )


def test_default_value_change_is_restated_not_reembedded() -> None:
    diff = diff_sources(gql(SDL), gql(SDL.replace("Int = 10", "Int = 20")))
    assert diff.restated == ("Query.artist",) and diff.changed == () and diff.hash_changed
    assert diff.changed_root_fields == ("Query.artist",) or diff.changed_types == ("Query",)
    assert not diff.empty and diff.embed_count == 0


def test_removed_type_and_root_field() -> None:
    smaller = SDL.replace("  artists: [Artist!]! }", " }")
    diff = diff_sources(gql(SDL), gql(smaller))
    assert diff.removed == ("Query.artists",) and diff.removed_root_fields == ("Query.artists",)
    # Artist's document names the fields it is reached from: one of them is gone
    assert diff.changed_types == ("Artist", "Query")
    more = SDL + "type Label { id: ID! }"
    diff = diff_sources(gql(SDL), gql(more))
    assert diff.added_types == ("Label",) and set(diff.added) == {"Label", "Label.id"}
    assert diff.to_dict()["added_types"] == ["Label"]


def test_sql_diff_names_tables() -> None:
    def tables(extra: bool, drop: bool) -> list[dict[str, object]]:
        found: list[dict[str, object]] = [
            {"id": "s.a", "name": "a", "columns": [{"name": "a_id", "type": "INT"}]},
            {"id": "s.c", "name": "c", "columns": [{"name": "note", "type": "TEXT"}]},
        ]
        if extra:
            found[0]["columns"] = [{"name": "a_id", "type": "INT"}, {"name": "amount"}]
        if not drop:
            found.append({"id": "s.b", "name": "b", "columns": [{"name": "x", "type": "INT"}]})
        for t in found:
            t |= {"foreign_keys": [], "primary_key": [], "is_view": False, "description": ""}
        return found

    old = build_sql_schema(tables(False, False), "db")  # type: ignore[arg-type]
    new = build_sql_schema(tables(True, True), "db")  # type: ignore[arg-type]
    diff = diff_sources(old, new)
    assert diff.changed_tables == ("s.a",) and diff.removed_tables == ("s.b",)
    assert diff.added_tables == () and "s.a#measures" in diff.added
    assert set(diff.changed) == {"s.a"}  # identity members grew; the new facet is added


def test_redact_url() -> None:
    assert redact_url("postgresql+psycopg://u:p%40ss@h:5/db?sslmode=require") == (
        "postgresql+psycopg://u:***@h:5/db?sslmode=require"
    )
    assert redact_url("https://api.x/graphql?access_token=abc&x=1") == (
        "https://api.x/graphql?access_token=***&x=1"
    )
    assert redact_url("snowflake://me:pw@acct/db?private_key_file_pwd=k&warehouse=w") == (
        "snowflake://me:***@acct/db?private_key_file_pwd=***&warehouse=w"
    )
    assert redact_url("sqlite:///x.db") == "sqlite:///x.db"
    assert redact_url("host=db password=secret") == "<unparsable URL>"
    assert redact_headers({"Authorization": "Bearer x", "Accept": "json"}) == {
        "Authorization": MASK,
        "Accept": "json",
    }


def test_secrets_scrub_text_structures_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    secrets = Secrets()
    secrets.add_url("mysql://root:p@ss w0rd@h/db?token=tk-123")
    secrets.add_headers({"Authorization": "Bearer abcdef123456", "Accept": "x"})
    text = "failed for root:p@ss w0rd and p%40ss%20w0rd with tk-123 / abcdef123456 / x"
    assert secrets.scrub(text) == "failed for root:*** and *** with *** / *** / x"
    assert secrets.scrub_any({"a": ["Bearer abcdef123456"]}) == {"a": [MASK]}
    caplog.set_level(logging.DEBUG)
    with redacting_loggers(secrets):
        logging.getLogger("httpx").info("GET %s", "https://h/?token=tk-123")
        logging.getLogger("httpcore.http11").debug("abcdef123456")
    logging.getLogger("httpx").info("after %s", "tk-123")  # filter removed afterwards
    assert "tk-123" not in caplog.records[0].getMessage()
    assert caplog.records[1].getMessage() == MASK
    assert caplog.records[2].getMessage() == "after tk-123"
