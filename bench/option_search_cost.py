"""What the model-directory option costs a user: index build and first questions on the demo.

Builds the embedded demo (its GraphQL schema and SQLite catalog, 450 documents) in a fresh
in-process index with the embedding model the settings name, then asks four questions: two
new ones while nothing is warm (the question's and the reranker's token vectors computed),
a third new one, and the first again (everything cached). Wall and thread CPU per step.
Run it once per model, interleaved, in an empty folder after ``schemaseek demo --export .``:

    .venv/bin/python bench/option_search_cost.py
    SCHEMASEEK_ONNX_MODEL=~/.cache/schemaseek/models/all-mpnet-base-v2 \\
        .venv/bin/python bench/option_search_cost.py
"""

from __future__ import annotations

import time

from schemaseek import SchemaIndex, SearchSettings, load_glossary, load_sdl, load_sql

QUESTIONS = (
    "royalty payments for Sony",
    "how are releases distributed?",
    "artist payouts last quarter",
    "royalty payments for Sony",
)


def main() -> None:
    settings = SearchSettings()
    index = SchemaIndex(
        [load_sdl("schema.graphql"), load_sql("sqlite:///music.db")],
        glossary=load_glossary("glossary.json"),
        settings=settings,
    )
    started = time.perf_counter()
    index.build()
    print(f"model {settings.onnx_model or 'packaged MiniLM'}")
    print(f"build {time.perf_counter() - started:.2f} s wall")
    for question in QUESTIONS:
        wall, cpu = time.perf_counter(), time.thread_time()
        top = index.search(question, limit=5).hits[0].id
        wall_ms = (time.perf_counter() - wall) * 1000
        cpu_ms = (time.thread_time() - cpu) * 1000
        print(f"{question!r}: {wall_ms:.1f} ms wall, {cpu_ms:.1f} ms CPU, top {top}")


if __name__ == "__main__":
    main()
