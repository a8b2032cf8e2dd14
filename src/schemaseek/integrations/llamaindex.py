"""A LlamaIndex retriever over schemaseek (``pip install 'schemaseek[llamaindex]'``).

    from schemaseek.integrations.llamaindex import SchemaSeekRetriever

    retriever = SchemaSeekRetriever.over(index, limit=5)          # in process
    retriever = SchemaSeekRetriever.over(client, limit=5)         # the network service
    nodes = retriever.retrieve("royalty payments for Sony")
    nodes[0].node.node_id, nodes[0].score, nodes[0].node.metadata["why"]

Each result is a ``NodeWithScore`` around a ``TextNode`` (id: the schema item's id) whose
text is the item described for a model and whose metadata is
:mod:`schemaseek.integrations.common`'s; none of it is sent to an embedding or LLM call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemaseek.errors import MissingExtraError
from schemaseek.integrations.common import Searcher, searcher

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError:  # pragma: no cover - exercised by the missing-extra test
    raise MissingExtraError("llama-index-core", "llamaindex") from None

if TYPE_CHECKING:
    from schemaseek.client import SchemaSeekClient
    from schemaseek.index import SchemaIndex

__all__ = ["SchemaSeekRetriever"]


class SchemaSeekRetriever(BaseRetriever):
    """A LlamaIndex ``BaseRetriever``: schema items (operations, types, tables) for a question."""

    def __init__(self, searcher: Searcher, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.searcher = searcher

    @classmethod
    def over(
        cls, target: SchemaIndex | SchemaSeekClient, *, limit: int = 5, **options: Any
    ) -> SchemaSeekRetriever:
        """Over a built in-process index or a :class:`~schemaseek.client.SchemaSeekClient`;
        ``options``: ``kinds``, ``sources``, ``mode``."""
        return cls(searcher(target, limit=limit, **options))

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [
            NodeWithScore(
                node=TextNode(
                    id_=item.id,
                    text=item.text,
                    metadata=item.metadata,
                    excluded_embed_metadata_keys=list(item.metadata),
                    excluded_llm_metadata_keys=list(item.metadata),
                ),
                score=item.score,
            )
            for item in self.searcher.retrieve(query_bundle.query_str)
        ]
