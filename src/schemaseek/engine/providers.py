"""Embedding providers and circuit breakers from :class:`~schemaseek.config.SearchSettings`."""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.breaker import BreakerConfig, Strategy

__all__ = ["breaker_config", "provider_from_settings"]


def breaker_config(settings: SearchSettings) -> BreakerConfig:
    """The breaker thresholds of ``settings`` (``SCHEMASEEK_BREAKER_*``)."""
    return BreakerConfig(
        strategy=Strategy(settings.breaker_strategy),
        failure_threshold=settings.breaker_failure_threshold,
        window_s=settings.breaker_window_s,
        cooldown_s=settings.breaker_cooldown_s,
        success_threshold=settings.breaker_success_threshold,
    )


def provider_from_settings(settings: SearchSettings) -> EmbeddingProvider:
    """The provider ``settings`` name: the local ONNX model, or an OpenAI-compatible server
    (model, base URL, dimensions, API-key variable and query deadline from the settings)."""
    if settings.embedding_provider == "openai":
        from schemaseek.embedding.openai_compat import OpenAICompatibleProvider

        return OpenAICompatibleProvider(
            settings.embedding_model,
            dimensions=settings.embedding_dimensions,
            base_url=settings.embedding_base_url,
            api_key_env=settings.embedding_api_key_env,
            batch_size=settings.embedding_batch_size,
            query_timeout_s=settings.query_embedding_timeout_s,
            query_prefix=settings.query_prefix,
        )
    from schemaseek.index import default_provider

    return default_provider(settings)
