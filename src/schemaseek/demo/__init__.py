"""Embedded demo: a music rights and distribution company (SQL catalog, GraphQL SDL, glossary)."""
