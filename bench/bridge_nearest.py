"""The name bridge's nearest-word lookup alone: ``NameVocabulary.nearest`` (faiss's exhaustive
inner-product kernel on one thread) against numpy's ``vocabulary @ words.T`` with its BLAS
threads, on random unit vectors of the model's width, for vocabularies of real catalogs' sizes
(BIRD-dev holds 458 name words, Spider 2.0-Snow 7,024).

Both ways answer the same three question words in turn, ``--repeat`` times per round, rounds
interleaved; reported is the best round, per lookup, in process CPU (which counts BLAS helper
threads) and wall time.

    .venv/bin/python -m bench.bridge_nearest --sizes 500 7000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from schemaseek.signals.name_bridge import NameVocabulary

DIMENSIONS = 384


def unit_rows(rng: np.random.Generator, count: int) -> np.ndarray:
    rows = rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Milliseconds per call: (process CPU, wall)."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        call()
    return (
        (time.process_time() - cpu) / repeat * 1000,
        (time.perf_counter() - wall) / repeat * 1000,
    )


def compare(size: int, words: int, repeat: int, rounds: int) -> dict[str, tuple[float, float]]:
    """The best round of each way, per lookup: (process CPU ms, wall ms)."""
    rng = np.random.default_rng(size)
    names = tuple(f"w{i}" for i in range(size))
    vectors = unit_rows(rng, size)
    vocabulary = NameVocabulary(dict.fromkeys(names, 1), names, vectors, frozenset(names))
    question = unit_rows(rng, words)

    def with_faiss() -> object:
        return vocabulary.nearest(question, neighbours=1, threshold=0.5)

    def with_numpy() -> object:
        return (vectors @ question.T).argmax(axis=0)

    ways = {"faiss knn, one thread": with_faiss, "numpy matmul": with_numpy}
    best = dict.fromkeys(ways, (float("inf"), float("inf")))
    for _ in range(rounds):
        for name, call in ways.items():
            cpu, wall = timed(call, repeat)
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 7000])
    parser.add_argument("--words", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for size in args.sizes:
        for name, (cpu, wall) in compare(size, args.words, args.repeat, args.rounds).items():
            print(f"{size:>6} words  {name:<22} CPU {cpu:.3f} ms  wall {wall:.3f} ms")


if __name__ == "__main__":
    main()
