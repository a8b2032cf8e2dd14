"""Two embedding models as one: the cosine of the fused vectors mixes the two models' cosines.

Each model's unit vector is scaled by the square root of its share and the two are placed end
to end, so the fused vector has unit length and its dot product with another fused vector is
``(1 - share) * cos_first + share * cos_second``: a weighted mean of the two similarities,
computed by the one vector index as it is. The late-interaction reranker reads the *first*
model's token vectors: on the six GraphQL dev halves they rank as well as the second's (root
hit@5 / MRR and type recall@10 equal, type MRR .611 against .597) at a seventh of the cost a
document (bench/QUALITY.md, session 19).

Used when ``onnx_model`` names a model directory and ``onnx_model_share`` is below 1: the
packaged MiniLM keeps the rest of the dense score (bench/QUALITY.md, session 18: share 0.7,
chosen leave one schema out, found more root fields than either model alone on every fresh
set).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, Vectors
from schemaseek.embedding.question_store import find_token_vectors
from schemaseek.errors import ConfigError, EmbeddingError

__all__ = ["FusedProvider"]


class FusedProvider:
    """``first`` and ``second`` embedding the same texts; ``share`` is the second's weight."""

    def __init__(self, first: EmbeddingProvider, second: EmbeddingProvider, share: float) -> None:
        if not 0.0 < share < 1.0:
            raise ConfigError(f"the second model's share must be between 0 and 1, not {share}")
        self.first = first
        self.provider = second  # the wrapped chain's end: its name and query prefix
        self.share = share
        self._scales = (math.sqrt(1.0 - share), math.sqrt(share))
        # late interaction reads the first model's token vectors when it has them, else the second's
        self._tokens = find_token_vectors(first) or find_token_vectors(second)

    @property
    def model_id(self) -> str:
        """Both models and the share: vectors of another mix are other vectors."""
        return f"fused:{self.first.model_id}+{self.provider.model_id}@{self.share:g}"

    @property
    def dimensions(self) -> int:
        """The two models' sizes added."""
        return self.first.dimensions + self.provider.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Both models' document vectors, scaled and placed end to end (progress: the second's,
        the slower one's)."""
        first = self.first.embed(texts)
        second = self.provider.embed(texts, progress)
        return self._join(first, second)

    def embed_query(self, text: str) -> Vectors:
        """Both models' question vectors, scaled and placed end to end."""
        joined: Vectors = self._join(
            self.first.embed_query(text)[None, :], self.provider.embed_query(text)[None, :]
        )[0]
        return joined

    @property
    def token_model_id(self) -> str:
        """The model whose token vectors :meth:`token_vectors` gives (stores key them by it)."""
        return str(getattr(self._tokens, "model_id", ""))

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Vectors]:
        """Token vectors for late interaction, from the first model when it has them (a question
        just embedded costs no second run), else from the second."""
        if self._tokens is None:
            raise EmbeddingError("neither fused model gives token vectors")
        found: list[Vectors] = self._tokens.token_vectors(texts, query=query, bulk=bulk)
        return found

    def _join(self, first: Vectors, second: Vectors) -> Vectors:
        a, b = self._scales
        return np.ascontiguousarray(np.hstack([a * first, b * second]), dtype=np.float32)
