"""Where an index's memory goes: Python objects by allocation site (``tracemalloc``) against
the whole resident growth, per document, over the build and first search of
``bench/search_latency.py``'s synthetic documents (synthetic clustered vectors: the vectors'
values do not change their size, and no model run is needed).

``tracemalloc`` itself costs memory per traced block, so the resident growth is measured in a
first build without it, the Python breakdown in a second one.

    .venv/bin/python -m bench.memory_breakdown --size 10000 [--top 10]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

from bench.search_floor import trimmed_rss
from bench.search_latency import PrecomputedProvider, document_vectors, synthetic_documents

from schemaseek.documents import Document
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.base import SourceSchema


def build(docs: list[Document], provider: PrecomputedProvider) -> SchemaIndex:
    index = SchemaIndex([SourceSchema("bench", "sql", docs, [], "")], provider=provider)
    index.build()
    index.search("customer invoice payments", mode="keyword")  # builds what search builds
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    docs = synthetic_documents(args.size)
    model = OnnxEmbeddingProvider()  # names the vectors' model; never run
    provider = PrecomputedProvider(document_vectors(docs, model, False), model)
    before = trimmed_rss()
    index = build(docs, provider)
    resident = (trimmed_rss() - before) / args.size
    del index
    gc.collect()
    tracemalloc.start(1)
    start = tracemalloc.take_snapshot()
    index = build(docs, provider)
    gc.collect()
    stats = tracemalloc.take_snapshot().compare_to(start, "lineno")
    python = sum(s.size_diff for s in stats) / args.size
    print(f"{args.size:,} documents: resident growth {resident:,.0f} B/doc, of which Python "
          f"objects {python:,.0f} B/doc and native (tantivy, faiss, numpy) the rest")  # fmt: skip
    print("| B/doc | blocks | allocated at |")
    print("|---|---|---|")
    for stat in stats[: args.top]:
        frame = stat.traceback[0]
        print(f"| {stat.size_diff / args.size:,.0f} | {stat.count_diff:,} | "
              f"{frame.filename.split('/src/')[-1]}:{frame.lineno} |")  # fmt: skip
    del index


if __name__ == "__main__":
    main()
