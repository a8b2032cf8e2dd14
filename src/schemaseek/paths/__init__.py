"""Paths an agent can paste: SQL join paths with ON clauses (:mod:`~schemaseek.paths.joins`),
GraphQL root paths and validated selections (:mod:`~schemaseek.paths.graphql`)."""
