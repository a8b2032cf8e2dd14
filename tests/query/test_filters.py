"""Filters: prefix patterns, exact ids, kinds, sources, predicate."""

from __future__ import annotations

from schemaseek.documents import DocKind, Document
from schemaseek.query.filters import SearchFilter, pattern_matches

TABLE = Document("ANALYTICS.SALES.ORDERS", DocKind.SQL_TABLE, "wh", "ORDERS")
TYPE = Document("Product", DocKind.GRAPHQL_TYPE, "api", "Product")


def test_prefix_and_exact_patterns() -> None:
    assert pattern_matches("ANALYTICS.*", "ANALYTICS.SALES.ORDERS")
    assert not pattern_matches("ANALYTICS.*", "ANALYTICSX.ORDERS")
    assert pattern_matches("Product", "Product")
    assert not pattern_matches("Product", "ProductVariant")


def test_include_exclude_kinds_sources_predicate() -> None:
    assert not SearchFilter().active
    assert SearchFilter(include=["ANALYTICS.*"]).allows(TABLE)
    assert not SearchFilter(include=["ANALYTICS.*"]).allows(TYPE)
    assert not SearchFilter(include=["ANALYTICS.*"], exclude=["ANALYTICS.SALES.*"]).allows(TABLE)
    assert SearchFilter(kinds=[DocKind.GRAPHQL_TYPE]).allows(TYPE)
    assert not SearchFilter(kinds=[DocKind.GRAPHQL_TYPE]).allows(TABLE)
    assert not SearchFilter(sources=["api"]).allows(TABLE)
    assert not SearchFilter(predicate=lambda d: d.name.islower()).allows(TYPE)
