"""Usage feedback as a ranking signal: ids chosen for similar past questions rank higher.

Every usage event (a question and the ids the caller went on to use) is kept with the
question's embedding. At query time the past questions most similar to the new one vote for
their chosen ids, each vote weighted by how far the similarity exceeds ``min_similarity``.
Questions unlike every past one (all similarities below the threshold) get no signal at all,
so feedback cannot drag unrelated questions towards popular items.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


class FeedbackSignal:
    """Past questions (as unit vectors) and the ids chosen for them."""

    def __init__(
        self, dimensions: int, *, min_similarity: float = 0.75, neighbours: int = 8
    ) -> None:
        self.dimensions = dimensions
        self.min_similarity = min_similarity
        self.neighbours = neighbours
        self._vectors = np.zeros((0, dimensions), dtype=np.float32)
        self._chosen: list[tuple[str, ...]] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._chosen)

    def add(self, query_vector: Vector, chosen_ids: Sequence[str]) -> None:
        """Remember one usage event."""
        if not chosen_ids:
            return
        vector = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
        if vector.shape[1] != self.dimensions:
            raise ValueError(
                f"feedback vector has {vector.shape[1]} dimensions, expected {self.dimensions}"
            )
        vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        with self._lock:
            self._vectors = np.vstack([self._vectors, vector])
            self._chosen.append(tuple(dict.fromkeys(chosen_ids)))

    def rank(self, query_vector: Vector) -> list[tuple[str, float]]:
        """Ids voted for by similar past questions, most supported first."""
        with self._lock:
            if not self._chosen:
                return []
            similarity = self._vectors @ np.asarray(query_vector, dtype=np.float32)
            chosen = self._chosen
        count = min(self.neighbours, len(chosen))
        nearest = np.argpartition(-similarity, count - 1)[:count]
        votes: dict[str, float] = {}
        for row in nearest:
            weight = float(similarity[row]) - self.min_similarity
            if weight <= 0:
                continue
            for doc_id in chosen[row]:
                votes[doc_id] = votes.get(doc_id, 0.0) + weight
        return sorted(votes.items(), key=lambda item: (-item[1], item[0]))
