"""Pick a reranker by name, from options or from :class:`~schemaseek.config.SearchSettings`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from schemaseek.config import SearchSettings
from schemaseek.errors import ConfigError
from schemaseek.rerankers.base import Reranker

NONE_NAMES = ("", "none", "off")
_DEVICES: dict[str, Literal["cpu", "cuda", "auto"]] = {"cpu": "cpu", "cuda": "cuda", "auto": "auto"}


def _cross_encoder(**options: Any) -> Reranker:
    from schemaseek.rerankers.cross_encoder import CrossEncoderReranker

    missing = [key for key in ("model_path", "tokenizer_path") if not options.get(key)]
    if missing:
        raise ConfigError(
            "the cross-encoder reranker needs "
            + " and ".join(missing)
            + " (settings reranker_model_path / reranker_tokenizer_path)"
        )
    for key in ("model_path", "tokenizer_path"):
        if not Path(options[key]).is_file():
            raise ConfigError(f"cross-encoder {key.replace('_', ' ')} not found: {options[key]}")
    return CrossEncoderReranker(**options)


def _late_interaction(**options: Any) -> Reranker:
    from schemaseek.rerankers.late_interaction import LateInteractionReranker

    options["provider"] = token_vector_provider(
        options.get("provider"), options.pop("device", None)
    )
    return LateInteractionReranker(**options)


_RERANKERS: dict[str, Callable[..., Reranker]] = {
    "cross-encoder": _cross_encoder,
    "late-interaction": _late_interaction,
}


def reranker_names() -> list[str]:
    """The names :func:`create_reranker` accepts besides ``"none"``."""
    return sorted(_RERANKERS)


def create_reranker(name: str | None, **options: Any) -> Reranker | None:
    """Build the reranker called ``name`` with keyword ``options``; nothing is loaded here.

    ``None``/``"none"`` → no reranker. ``"cross-encoder"``: options of
    :class:`~schemaseek.rerankers.cross_encoder.CrossEncoderReranker` (``model_path`` and
    ``tokenizer_path`` required, and the files must exist). ``"late-interaction"``: options of
    :class:`~schemaseek.rerankers.late_interaction.LateInteractionReranker`; ``provider`` may be
    any embedding provider wrapping an ``OnnxEmbeddingProvider`` (or absent: a new local one,
    on ``device`` if given).

    Raises:
        ConfigError: unknown ``name`` (the message lists the valid ones), missing files or
            invalid options.
    """
    key = (name or "none").strip().lower().replace("_", "-")
    if key in NONE_NAMES:
        return None
    backend = _RERANKERS.get(key)
    if backend is None:
        valid = ", ".join(["none", *reranker_names()])
        raise ConfigError(f"unknown reranker {name!r}; valid names: {valid}")
    try:
        return backend(**options)
    except TypeError as exc:
        raise ConfigError(f"invalid options for reranker {name!r}: {exc}") from exc


def reranker_from_settings(settings: SearchSettings, provider: object = None) -> Reranker | None:
    """The reranker ``settings`` configure (``reranker``, ``reranker_model_path``,
    ``reranker_tokenizer_path``, ``rerank_candidates``, ``rerank_alpha``, ``device``).
    ``provider`` is the index's embedding provider, reused by late interaction; without one
    (a keyword-only index) late interaction is off."""
    name = settings.reranker
    options: dict[str, Any] = {"max_candidates": settings.rerank_candidates}
    key = (name or "none").strip().lower().replace("_", "-")
    if key == "cross-encoder":
        options.update(
            model_path=settings.reranker_model_path,
            tokenizer_path=settings.reranker_tokenizer_path,
            device=settings.device,
        )
    elif key == "late-interaction":
        if provider is None:  # a keyword-only index has no model to read token vectors from
            return None
        options.update(provider=provider, alpha=settings.rerank_alpha, device=settings.device)
    return create_reranker(name, **options)


def token_vector_provider(provider: object = None, device: str | None = None) -> Any:
    """The object with ``token_vectors`` inside ``provider`` (wrappers expose the wrapped one
    as ``.provider``), else a new local ``OnnxEmbeddingProvider`` on ``device``."""
    from schemaseek.embedding.question_store import find_token_vectors

    found = find_token_vectors(provider)
    if found is not None:
        return found
    from schemaseek.embedding.onnx import OnnxEmbeddingProvider

    chosen = _DEVICES.get(device or "cpu")
    if chosen is None:
        raise ConfigError(f"device must be 'cpu', 'cuda' or 'auto', not {device!r}")
    return OnnxEmbeddingProvider(device=chosen)
