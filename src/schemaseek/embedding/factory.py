"""Pick an embedding backend by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.errors import ConfigError


def _onnx(**options: Any) -> EmbeddingProvider:
    from schemaseek.embedding.onnx import OnnxEmbeddingProvider

    return OnnxEmbeddingProvider(**options)


def _openai(**options: Any) -> EmbeddingProvider:
    from schemaseek.embedding.openai_compat import OpenAICompatibleProvider

    return OpenAICompatibleProvider(**options)


_BACKENDS: dict[str, Callable[..., EmbeddingProvider]] = {"onnx": _onnx, "openai": _openai}


def provider_names() -> list[str]:
    """The backend names :func:`create_provider` accepts."""
    return sorted(_BACKENDS)


def create_provider(name: str = "onnx", **options: Any) -> EmbeddingProvider:
    """Build the embedding provider called ``name`` with keyword ``options``.

    ``"onnx"`` is the local all-MiniLM-L6-v2 model (options: those of
    :class:`~schemaseek.embedding.onnx.OnnxEmbeddingProvider`). ``"openai"`` is any
    OpenAI-compatible ``/v1/embeddings`` server (options: those of
    :class:`~schemaseek.embedding.openai_compat.OpenAICompatibleProvider`). Nothing is loaded
    or requested here.

    Raises:
        ConfigError: unknown ``name`` (the message lists the valid ones) or unknown options.
    """
    backend = _BACKENDS.get(name.strip().lower())
    if backend is None:
        valid = ", ".join(provider_names())
        raise ConfigError(f"unknown embedding provider {name!r}; valid names: {valid}")
    try:
        return backend(**options)
    except TypeError as exc:
        raise ConfigError(f"invalid options for embedding provider {name!r}: {exc}") from exc
