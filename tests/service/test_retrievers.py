"""The framework retrievers over the network service's client: the demo server's answers
through LangChain's and LlamaIndex's own retriever interfaces."""

from __future__ import annotations

from schemaseek.client import SchemaSeekClient
from schemaseek.integrations import langchain, llamaindex
from tests.service.harness import SEARCH_TOKEN, ServerProcess

QUESTION = "royalty payments for Sony"


def test_retrievers_over_the_service_client(demo_server: ServerProcess) -> None:
    with SchemaSeekClient(demo_server.url, token=SEARCH_TOKEN, timeout_ms=10_000) as client:
        chain = langchain.SchemaSeekRetriever.over(client, limit=3, kinds=["graphql_root_field"])
        docs = chain.invoke(QUESTION)
        assert docs[0].id == "Query.abacusContract"
        meta = docs[0].metadata
        assert meta["source"] == "music_api" and meta["query_id"]
        assert "royalty payments" in meta["explanation"]["glossary"]
        assert set(meta["explanation"]["signals"]) >= {"glossary", "vector"}
        assert meta["path"] == "Query.abacusContract" and meta["required_args"]

        llama = llamaindex.SchemaSeekRetriever.over(client, limit=10, sources=["music_db"])
        nodes = llama.retrieve(QUESTION)
        ids = [n.node.node_id for n in nodes]
        assert "royalty_payment" in ids[:3]
        assert {n.node.metadata["source"] for n in nodes} == {"music_db"}
        joined = [n for n in nodes if n.node.metadata.get("join_paths")]
        assert joined and all(
            "JOIN" in sql for n in joined for sql in n.node.metadata["join_paths"]
        )
