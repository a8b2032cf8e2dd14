"""The LangChain and LlamaIndex retrievers over an in-process index, through each framework's
own retriever interface (the real packages), and the error when an extra is missing."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever as LangChainRetriever
from llama_index.core.retrievers import BaseRetriever as LlamaRetriever
from llama_index.core.schema import NodeWithScore

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.errors import MissingExtraError
from schemaseek.index import SchemaIndex
from schemaseek.integrations import langchain, llamaindex
from schemaseek.sources.demo import demo_glossary, demo_sources

QUESTION = "royalty payments for Sony"
ROOT = ["graphql_root_field"]


@pytest.fixture(scope="module")
def demo(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=onnx_provider)
    index.build()
    return index


def test_langchain_retriever_returns_the_demo_answer(demo: SchemaIndex) -> None:
    retriever = langchain.SchemaSeekRetriever.over(demo, limit=3, kinds=ROOT)
    assert isinstance(retriever, LangChainRetriever)
    docs = retriever.invoke(QUESTION)
    assert all(isinstance(d, Document) for d in docs) and len(docs) == 3
    top = docs[0]
    assert top.id == top.metadata["id"] == "Query.abacusContract"
    assert top.metadata["source"] == "music_api" and top.metadata["kind"] == "graphql_root_field"
    assert "royalty payments" in top.metadata["explanation"]["glossary"]
    assert "glossary: royalty payments" in top.metadata["why"]
    assert top.metadata["path"] == "Query.abacusContract"
    assert top.metadata["required_args"] == ["Query.abacusContract: id: ID!"]
    assert top.page_content.startswith("Query.abacusContract (graphql root field in music_api)")
    again = asyncio.run(retriever.ainvoke(QUESTION))
    assert [d.id for d in again] == [d.id for d in docs]


def test_llamaindex_retriever_returns_the_demo_answer(demo: SchemaIndex) -> None:
    retriever = llamaindex.SchemaSeekRetriever.over(demo, limit=10)
    assert isinstance(retriever, LlamaRetriever)
    nodes = retriever.retrieve(QUESTION)
    assert all(isinstance(n, NodeWithScore) for n in nodes) and len(nodes) == 10
    ids = [n.node.node_id for n in nodes]
    roots = [i for i in ids if i.startswith("Query.")]
    assert roots[0] == "Query.abacusContract"
    assert "royalty_payment" in ids
    assert nodes[0].score == pytest.approx(nodes[0].node.metadata["score"])
    assert all(n.score is not None for n in nodes)
    assert [n.score for n in nodes] == sorted((n.score or 0.0 for n in nodes), reverse=True)
    table = next(n for n in nodes if n.node.node_id == "royalty_payment")
    assert table.node.metadata["kind"] == "sql_table" and "fields:" in table.node.get_content()
    again = asyncio.run(retriever.aretrieve(QUESTION))
    assert [n.node.node_id for n in again] == ids


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("schemaseek.integrations.langchain", "langchain_core.retrievers", "langchain"),
        ("schemaseek.integrations.llamaindex", "llama_index.core.retrievers", "llamaindex"),
    ],
)
def test_a_missing_extra_names_it(
    module: str, framework: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, framework, None)  # what an absent package looks like
    with pytest.raises(MissingExtraError, match=rf"pip install 'schemaseek\[{extra}\]'"):
        importlib.import_module(module)
