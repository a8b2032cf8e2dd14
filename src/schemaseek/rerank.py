"""The rerank stage's protocol. With no reranker configured the stage passes hits through.

The protocol lives in :mod:`schemaseek.rerankers.base`, next to the implementations in
:mod:`schemaseek.rerankers`; it is re-exported here for existing imports.
"""

from __future__ import annotations

from schemaseek.rerankers.base import Reranker

__all__ = ["Reranker"]
