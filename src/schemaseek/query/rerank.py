"""The rerank stage. With no reranker configured it passes the fused ranking through.

The protocol lives in :mod:`schemaseek.rerankers.base`, next to the implementations in
:mod:`schemaseek.rerankers`; it is re-exported here for existing imports.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping

from schemaseek.documents import DocKind, Document
from schemaseek.rerankers.base import Ranked, Reranker

__all__ = ["Reranker", "rerank_stage"]

logger = logging.getLogger(__name__)


def rerank_stage(
    reranker: Reranker | None,
    query: str,
    documents: Mapping[str, Document],
    ranked: Ranked,
    voted: Collection[str] = (),
) -> tuple[Ranked, bool]:
    """Re-score the fused ``ranked`` candidates; returns the ranking and whether it reranked.

    The reranker sees the candidates and their fused scores. What a text reranker cannot
    judge keeps its fused score: GraphQL root fields, which rank by where they lead, and the
    ``voted`` ids, chosen by users for similar questions. Any failure of the reranker keeps
    the fused ranking (the stage degrades, never the search).
    """
    if reranker is None or not ranked:
        return ranked, False
    try:
        docs = [documents[d] for d, _ in ranked]
        reranked = reranker.rerank(query, docs, [score for _, score in ranked])
    except Exception as exc:  # the stage degrades, never the search
        logger.warning("reranker failed, keeping fused order: %s", exc)
        return ranked, False
    fused = dict(ranked)
    kept = [
        (d, fused[d] if d in voted or documents[d].kind is DocKind.GRAPHQL_ROOT_FIELD else score)
        for d, score in reranked
    ]
    return sorted(kept, key=lambda item: -item[1]), True
