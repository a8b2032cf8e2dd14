"""The provider protocol every embedding backend implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
ProgressCallback = Callable[[int], None]


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns text into L2-normalised float32 vectors.

    ``embed`` is for documents (batched); ``embed_query`` is for one question and may prepend
    an asymmetric query prefix. Both return unit-length vectors of ``dimensions`` floats.
    ``progress`` (if given) is called with the number of texts finished after each batch.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Embed documents: returns an array of shape (len(texts), dimensions)."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one query: returns an array of shape (dimensions,)."""
        ...


class ProviderWrapper:
    """Base of providers that wrap another one (caches, counters, breakers).

    The wrapped provider's identity — ``model_id`` and ``dimensions`` — passes through
    unchanged; ``embed`` and ``embed_query`` pass through unless a subclass overrides them.
    """

    def __init__(self, provider: EmbeddingProvider) -> None:
        self.provider = provider

    @property
    def model_id(self) -> str:
        """The wrapped provider's model id."""
        return self.provider.model_id

    @property
    def dimensions(self) -> int:
        """The wrapped provider's vector size."""
        return self.provider.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Embed documents with the wrapped provider."""
        return self.provider.embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query with the wrapped provider."""
        return self.provider.embed_query(text)
