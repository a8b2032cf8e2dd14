"""The rerank stage's protocol. With no reranker configured the stage passes hits through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from schemaseek.documents import Document


class Reranker(Protocol):
    """Re-scores fused candidates jointly with the question; returns ``(id, score)`` best first."""

    def rerank(self, query: str, candidates: Sequence[Document]) -> list[tuple[str, float]]: ...
