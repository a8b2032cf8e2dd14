"""Rerankers for the pipeline's rerank stage (spec 003 "Reranking").

- :class:`CrossEncoderReranker`: a local ONNX cross-encoder (any model path you configure).
- :class:`LateInteractionReranker`: ColBERT-style MaxSim over the embedding model's token
  vectors; needs nothing beyond the default embedding model.

:func:`create_reranker` builds one by name; :func:`reranker_from_settings` from
:class:`~schemaseek.config.SearchSettings` (``SCHEMASEEK_RERANKER=late-interaction``).
"""

from __future__ import annotations

from schemaseek.rerankers.base import Ranked, Reranker, reorder
from schemaseek.rerankers.cross_encoder import CrossEncoderReranker
from schemaseek.rerankers.factory import create_reranker, reranker_from_settings, reranker_names
from schemaseek.rerankers.late_interaction import LateInteractionReranker, maxsim

__all__ = [
    "CrossEncoderReranker",
    "LateInteractionReranker",
    "Ranked",
    "Reranker",
    "create_reranker",
    "maxsim",
    "reorder",
    "reranker_from_settings",
    "reranker_names",
]
