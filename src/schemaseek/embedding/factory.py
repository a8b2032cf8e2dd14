"""The one place embedding providers and their circuit breakers are built.

:func:`provider_from_settings` is what the index, the engines, the CLI and the service call: it
honours every embedding setting of :class:`~schemaseek.config.SearchSettings`.
:func:`create_provider` picks a backend by name with explicit options (the Python API).
Nothing is loaded or requested here: the ONNX model loads on first use, the remote server is
first called by the first embedding.

This module imports neither :mod:`schemaseek.index` nor anything above the embedding layer.
"""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.breaker import BreakerConfig, Strategy
from schemaseek.embedding.sessions import Device
from schemaseek.errors import ConfigError

__all__ = ["breaker_config", "create_provider", "provider_from_settings", "provider_names"]

_NAMES = ("onnx", "openai")


def provider_names() -> list[str]:
    """The backend names :func:`create_provider` accepts."""
    return sorted(_NAMES)


def provider_from_settings(settings: SearchSettings) -> EmbeddingProvider:
    """The provider ``settings.embedding_provider`` names, configured from ``settings``.

    ``"onnx"``: the local all-MiniLM-L6-v2 model, or the one in the ``onnx_model`` directory,
    with ``device``, ``embedding_batch_size`` and ``query_prefix``. ``"openai"``: an
    OpenAI-compatible server with ``embedding_model``,
    ``embedding_base_url``, ``embedding_dimensions``, ``embedding_api_key_env``,
    ``embedding_batch_size``, ``embedding_max_in_flight``, ``query_embedding_timeout_s`` and
    ``query_prefix``.
    """
    if settings.embedding_provider == "openai":
        return create_provider(
            "openai",
            model=settings.embedding_model,
            dimensions=settings.embedding_dimensions,
            base_url=settings.embedding_base_url,
            api_key_env=settings.embedding_api_key_env,
            batch_size=settings.embedding_batch_size,
            max_in_flight=settings.embedding_max_in_flight,
            query_timeout_s=settings.query_embedding_timeout_s,
            query_prefix=settings.query_prefix,
        )
    return create_provider(
        "onnx",
        model_dir=settings.onnx_model,
        model_share=settings.onnx_model_share if settings.onnx_model else None,
        device=settings.device,
        batch_size=settings.embedding_batch_size,
        query_prefix=settings.query_prefix,
    )


def breaker_config(settings: SearchSettings) -> BreakerConfig:
    """The breaker thresholds of ``settings`` (``SCHEMASEEK_BREAKER_*``)."""
    return BreakerConfig(
        strategy=Strategy(settings.breaker_strategy),
        failure_threshold=settings.breaker_failure_threshold,
        window_s=settings.breaker_window_s,
        cooldown_s=settings.breaker_cooldown_s,
        success_threshold=settings.breaker_success_threshold,
    )


def create_provider(
    name: str = "onnx",
    *,
    batch_size: int = 64,
    query_prefix: str = "",
    dimensions: int | None = None,
    device: Device | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    query_timeout_s: float | None = None,
    max_in_flight: int | None = None,
    model_dir: str | None = None,
    model_share: float | None = None,
) -> EmbeddingProvider:
    """Build the embedding provider called ``name``.

    ``"onnx"`` is the local all-MiniLM-L6-v2 model, or the model in ``model_dir``
    (:mod:`schemaseek.embedding.model_dir`), fused with the packaged model when
    ``model_share`` (that model's share of the dense score) is below 1
    (:mod:`schemaseek.embedding.fused`); ``device``, ``model_dir`` and ``model_share`` apply to
    it only (default ``"cpu"``, no directory, share 1). ``"openai"`` is any OpenAI-compatible
    ``/v1/embeddings`` server; ``model``,
    ``base_url``, ``api_key_env``, ``query_timeout_s`` and ``max_in_flight`` apply to it only
    (defaults: those of :class:`~schemaseek.embedding.openai_compat.OpenAICompatibleProvider`).
    ``dimensions`` (default: the backend's), ``batch_size`` and ``query_prefix`` apply to both.

    Raises:
        ConfigError: unknown ``name`` (the message lists the valid ones), an option the backend
            does not take, or an invalid value.
    """
    key = name.strip().lower()
    if key == "onnx":
        remote: dict[str, object] = {"model": model, "base_url": base_url}
        remote.update(
            api_key_env=api_key_env, query_timeout_s=query_timeout_s, max_in_flight=max_in_flight
        )
        _reject(name, [option for option, value in remote.items() if value is not None])
        from schemaseek.embedding.onnx import DEFAULT_DIMENSIONS, OnnxEmbeddingProvider

        if model_share is not None and not 0.0 < model_share <= 1.0:
            raise ConfigError(f"model_share must be in (0, 1], not {model_share}")
        if model_share is not None and not model_dir:
            raise ConfigError("model_share needs model_dir: the share of which model?")
        if not model_dir:
            return OnnxEmbeddingProvider(
                dimensions=DEFAULT_DIMENSIONS if dimensions is None else dimensions,
                device=device or "cpu",
                batch_size=batch_size,
                query_prefix=query_prefix,
            )
        from schemaseek.embedding.model_dir import read_model_directory

        found = read_model_directory(model_dir)
        if dimensions is not None and dimensions != found.dimensions:
            raise ConfigError(
                f"dimensions={dimensions}, but the model in {model_dir} gives {found.dimensions}"
            )
        directory = OnnxEmbeddingProvider(
            found.model_path,
            found.tokenizer_path,
            model_id=found.model_id,
            dimensions=found.dimensions,
            max_tokens=found.max_tokens,
            device=device or "cpu",
            batch_size=batch_size,
            query_prefix=query_prefix,
        )
        if model_share is None or model_share >= 1.0:
            return directory
        from schemaseek.embedding.fused import FusedProvider

        packaged = OnnxEmbeddingProvider(
            device=device or "cpu", batch_size=batch_size, query_prefix=query_prefix
        )
        return FusedProvider(packaged, directory, model_share)
    if key == "openai":
        local = (("device", device), ("model_dir", model_dir), ("model_share", model_share))
        _reject(name, [option for option, value in local if value is not None])
        from schemaseek.embedding import openai_compat

        return openai_compat.OpenAICompatibleProvider(
            openai_compat.DEFAULT_MODEL if model is None else model,
            dimensions=openai_compat.DEFAULT_DIMENSIONS if dimensions is None else dimensions,
            base_url=openai_compat.DEFAULT_BASE_URL if base_url is None else base_url,
            api_key_env=openai_compat.DEFAULT_API_KEY_ENV if api_key_env is None else api_key_env,
            batch_size=batch_size,
            max_in_flight=openai_compat.DEFAULT_MAX_IN_FLIGHT
            if max_in_flight is None
            else max_in_flight,
            query_timeout_s=(
                openai_compat.DEFAULT_QUERY_TIMEOUT_S
                if query_timeout_s is None
                else query_timeout_s
            ),
            query_prefix=query_prefix,
        )
    raise ConfigError(f"unknown embedding provider {name!r}; valid names: {', '.join(_NAMES)}")


def _reject(name: str, options: list[str]) -> None:
    if options:
        raise ConfigError(
            f"invalid options for embedding provider {name!r}: {', '.join(options)} "
            "(not taken by this backend)"
        )
