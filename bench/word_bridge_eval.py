"""Experiment (not in the product): expand a question onto the index's own name vocabulary.

Each question word that no document name holds (after stemming) is replaced by its nearest
name words by MiniLM cosine (``--neighbours`` of them, at least ``--threshold``); the words
found are searched as one more BM25 list, fused with the weight ``weights.bridge`` of the
variant. The vocabulary is every word of the documents' names, plus their members' names
(columns, fields) with ``--members``. Word vectors come through the on-disk embedding cache.

It runs one of the evaluation scripts with the pipeline's lexical stage wrapped, so the
script's own variants choose the weight (measured numbers: bench/QUALITY.md, "The schema's
own words for the question's"):

    .venv/bin/python bench/word_bridge_eval.py --members --neighbours 1 -- \\
        bench/sql_variants_eval.py bird-dev spider1-dev --scope pooled \\
        --variant base --variant weights.bridge=0.3
"""

from __future__ import annotations

import argparse
import runpy
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.config import default_cache_dir
from schemaseek.documents import Document
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.query import pipeline
from schemaseek.query.fusion import NamedSignal
from schemaseek.text import STOP_WORDS, split_words, stem, tokenize

Matrix = npt.NDArray[np.float32]
Vocabulary = tuple[Mapping[str, Document], list[str], Matrix, set[str]]


class Bridge:
    """Name vocabularies (built once per document mapping) and the expansion of a question."""

    def __init__(self, threshold: float, neighbours: int, members: bool) -> None:
        self.threshold, self.neighbours, self.members = threshold, neighbours, members
        self.disk = DiskCachedProvider(OnnxEmbeddingProvider(), default_cache_dir() / "embeddings")
        # per document mapping (by identity): the mapping, its words, their vectors, stems
        self.vocabularies: dict[int, Vocabulary] = {}

    def _unit(self, words: list[str]) -> Matrix:
        rows = np.asarray(self.disk.embed(words), dtype=np.float32)
        unit: Matrix = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return unit

    def vocabulary(self, documents: Mapping[str, Document]) -> tuple[list[str], Matrix, set[str]]:
        held = self.vocabularies.get(id(documents))
        if held is None or held[0] is not documents:
            names: list[str] = []
            for doc in documents.values():
                names.append(doc.name)
                if self.members:  # "CustomerID integer — identification of the customer"
                    names.extend(m.split(" ")[0].split(":")[0] for m in doc.members)
            words = sorted({w for n in names for w in split_words(n) if _content(w)})
            held = (documents, words, self._unit(words), {stem(w) for w in words})
            self.vocabularies[id(documents)] = held
        return held[1], held[2], held[3]

    def expand(self, documents: Mapping[str, Document], question: str) -> list[str]:
        words, vectors, stems = self.vocabulary(documents)
        unknown = [w for w in dict.fromkeys(split_words(question)) if _content(w)]
        unknown = [w for w in unknown if stem(w) not in stems]
        if not unknown or not words:
            return []
        found: list[str] = []
        for row in self._unit(unknown) @ vectors.T:
            best = np.argsort(-row)[: self.neighbours]
            found.extend(words[i] for i in best if row[i] >= self.threshold)
        return tokenize(" ".join(found))


def _content(word: str) -> bool:
    return len(word) >= 3 and word.isalpha() and word not in STOP_WORDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--neighbours", type=int, default=1)
    parser.add_argument("--members", action="store_true", help="columns' and fields' names too")
    parser.add_argument("script", type=Path)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    bridge = Bridge(args.threshold, args.neighbours, args.members)
    lexical = pipeline._lexical_signals

    def with_bridge(parts: Any, run: Any, depth: int) -> None:
        lexical(parts, run, depth)
        weight = parts.settings.weights.get("bridge", 0.0)
        if weight > 0 and run.mode != "vector":
            tokens = bridge.expand(parts.documents, run.query)
            if tokens:
                found = parts.keyword.search(tokens, depth)
                run.signals.append(NamedSignal("bridge", found, weight))

    pipeline._lexical_signals = with_bridge
    sys.path.insert(0, str(args.script.resolve().parent))
    sys.argv = [str(args.script), *[a for a in args.args if a != "--"]]
    runpy.run_path(str(args.script), run_name="__main__")


if __name__ == "__main__":
    main()
