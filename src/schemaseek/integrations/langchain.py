"""A LangChain retriever over schemaseek (``pip install 'schemaseek[langchain]'``).

    from schemaseek.integrations.langchain import SchemaSeekRetriever

    retriever = SchemaSeekRetriever.over(index, limit=5)          # in process
    retriever = SchemaSeekRetriever.over(client, limit=5)         # the network service
    docs = retriever.invoke("royalty payments for Sony")
    docs[0].metadata["id"], docs[0].metadata["why"]

Each result is a ``langchain_core.documents.Document`` whose ``page_content`` is the item
described for a model and whose ``metadata`` is :mod:`schemaseek.integrations.common`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemaseek.errors import MissingExtraError
from schemaseek.integrations.common import Searcher, searcher

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError:  # pragma: no cover - exercised by the missing-extra test
    raise MissingExtraError("langchain-core", "langchain") from None

if TYPE_CHECKING:
    from schemaseek.client import SchemaSeekClient
    from schemaseek.index import SchemaIndex

__all__ = ["SchemaSeekRetriever"]


class SchemaSeekRetriever(BaseRetriever):
    """A LangChain ``BaseRetriever``: schema items (operations, types, tables) for a question."""

    searcher: Any
    """A :class:`~schemaseek.integrations.common.Searcher` (index or service)."""

    @classmethod
    def over(
        cls, target: SchemaIndex | SchemaSeekClient, *, limit: int = 5, **options: Any
    ) -> SchemaSeekRetriever:
        """Over a built in-process index or a :class:`~schemaseek.client.SchemaSeekClient`;
        ``options``: ``kinds``, ``sources``, ``mode``."""
        return cls(searcher=searcher(target, limit=limit, **options))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        searcher: Searcher = self.searcher
        return [
            Document(page_content=item.text, metadata=item.metadata, id=item.id)
            for item in searcher.retrieve(query)
        ]
