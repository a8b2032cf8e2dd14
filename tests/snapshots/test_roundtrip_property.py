"""Property: save → load round-trips documents and vectors bit-exactly, and the restored
engine answers every query exactly as the engine that saved it (congruence)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.engine import SourceEngine
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.memory import MemoryStore
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import WORDS, HashProvider, schema_of

word = st.sampled_from(WORDS)
text = st.lists(st.one_of(word, st.text(min_size=1, max_size=8)), max_size=6).map(" ".join)
identifier = st.lists(word, min_size=1, max_size=3).map("_".join)


@st.composite
def documents(draw: st.DrawFn) -> list[Document]:
    names = draw(st.lists(identifier, min_size=1, max_size=40, unique=True))
    docs = []
    for i, name in enumerate(names):
        docs.append(
            Document(
                id=f"db.{name}",
                kind=draw(st.sampled_from([DocKind.SQL_TABLE, DocKind.GRAPHQL_TYPE])),
                source="shop",
                name=name,
                description=draw(text),
                members=tuple(draw(st.lists(identifier, max_size=5))),
                context=draw(text),
                target=f"db.{names[0]}" if i and draw(st.booleans()) else "",
                data={"n": i, "note": draw(text), "cols": [draw(identifier)]},
            )
        )
    return docs


QUERIES = ["customer order", "payment", "db.customer", "album release label", "tax"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents(), graph=st.booleans())
def test_save_load_round_trip_and_congruence(docs: list[Document], graph: bool) -> None:
    edges = [Edge(docs[0].id, d.id, Relation.FOREIGN_KEY, {"columns": ["x"]}) for d in docs[1:3]]
    schema = schema_of("shop", docs, edges)
    # a tiny exact threshold puts the HNSW graph (saved in faiss's format) on the path
    search_settings = SearchSettings(exact_threshold=4 if graph else 10_000)
    store = MemoryStore()
    original = SourceEngine(
        "shop", lambda: schema, provider=HashProvider(), settings=search_settings,
        snapshots=SnapshotManager(store),
    )  # fmt: skip
    original.init(wait=True)
    assert original.generation is not None

    def down() -> SourceSchema:
        raise OSError("offline")

    provider = HashProvider()
    restored = SourceEngine(
        "shop", down, provider=provider, settings=search_settings, snapshots=SnapshotManager(store)
    )
    restored.init(wait=True)
    assert restored.generation == original.generation and provider.embed_calls == 0

    a, b = original.index._require(), restored.index._require()
    assert list(a.documents) == list(b.documents)
    for doc_id, doc in a.documents.items():
        again = b.documents[doc_id]
        assert (
            again == doc and again.data == doc.data and again.content_hash() == doc.content_hash()
        )
    assert a.vector is not None and b.vector is not None
    assert a.vector.graph_built == b.vector.graph_built == (graph and len(docs) >= 4)
    for doc_id in a.documents:
        va, vb = a.vector.vector(doc_id), b.vector.vector(doc_id)
        assert va is not None and vb is not None
        assert va.tobytes() == vb.tobytes()  # bit-exact
    assert dict(a.pins) == dict(b.pins) and a.card_of == b.card_of
    assert restored.index.sources[0].documents == schema.documents
    for query in [*QUERIES, docs[0].name, docs[-1].description or "x"]:
        for mode in ("hybrid", "keyword", "vector"):
            ra = original.search(query, limit=10, mode=mode)
            rb = restored.search(query, limit=10, mode=mode)
            assert ra.ids() == rb.ids(), (query, mode)
            assert np.allclose(
                [h.score for h in ra.hits], [h.score for h in rb.hits], rtol=0, atol=0
            )
    original.destroy()
    restored.destroy()
