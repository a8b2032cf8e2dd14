"""A counting provider that also keeps what it was asked, so a test can tell a batch of
documents or phrases from the name bridge's question words (single words, embedded as
queries)."""

from __future__ import annotations

from collections.abc import Sequence

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, Vectors
from schemaseek.embedding.counting import CountingProvider


class RecordingProvider(CountingProvider):
    """:class:`CountingProvider` plus ``batches`` (the texts of each ``embed`` call) and
    ``queries`` (the text of each ``embed_query`` call)."""

    def __init__(self, provider: EmbeddingProvider) -> None:
        super().__init__(provider)
        self.batches: list[list[str]] = []
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        self.batches.append(list(texts))
        return super().embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return super().embed_query(text)

    def reset(self) -> None:
        super().reset()
        self.batches = []
        self.queries = []

    def question_queries(self) -> list[str]:
        """The queries of more than one word (questions, phrases): the name bridge's are
        single words."""
        return [q for q in self.queries if len(q.split()) > 1]
