"""The query path: one search from question to ranked, explained hits.

* :mod:`~schemaseek.query.pipeline` — the stages in order (pin → signals → fuse → filter →
  rerank → adjust → explain → augment) and the one input check of a search, over the state
  of :mod:`~schemaseek.query.state`;
* :mod:`~schemaseek.query.fusion` — weighted reciprocal rank fusion and weighted score sum;
* :mod:`~schemaseek.query.filters` — what a search may return (kinds, sources, id patterns);
* :mod:`~schemaseek.query.rerank` — the rerank stage around a reranker of
  :mod:`schemaseek.rerankers`;
* :mod:`~schemaseek.query.adjustments` — score changes after ranking: join propagation,
  source cohesion, facet → column mapping;
* :mod:`~schemaseek.query.graphql_priors` with :mod:`~schemaseek.query.intent` — what a
  GraphQL schema's structure and the question's intent say, after fusion;
* :mod:`~schemaseek.query.explain` — why each hit ranked, and its graph neighbours.
"""
