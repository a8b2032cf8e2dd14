"""Usage feedback: similar past questions vote for their chosen ids; unlike ones do not."""

from __future__ import annotations

import numpy as np
import pytest

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.signals.feedback import FeedbackSignal
from schemaseek.sources.demo import demo_sources


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_votes_are_weighted_by_similarity_above_the_threshold() -> None:
    signal = FeedbackSignal(2, min_similarity=0.5)
    signal.add(unit(1, 0), ["a", "b"])
    signal.add(unit(0.8, 0.6), ["b"])
    ranked = signal.rank(unit(1, 0))
    assert [d for d, _ in ranked] == ["b", "a"]
    assert dict(ranked)["a"] == pytest.approx(0.5)
    assert dict(ranked)["b"] == pytest.approx(0.5 + 0.3)


def test_unlike_questions_get_nothing_and_bad_input_is_rejected() -> None:
    signal = FeedbackSignal(2, min_similarity=0.5)
    assert signal.rank(unit(1, 0)) == []
    signal.add(unit(1, 0), ["a"])
    assert signal.rank(unit(0, 1)) == []
    with pytest.raises(ValueError, match="dimensions"):
        signal.add(np.ones(3, dtype=np.float32), ["a"])


def test_reported_usage_lifts_the_chosen_item(onnx_provider: OnnxEmbeddingProvider) -> None:
    index = SchemaIndex(demo_sources(), provider=onnx_provider)
    index.build()
    question = "money owed to songwriters this quarter"
    before = index.search(question, limit=20)
    chosen = before.ids()[-1]
    assert index.record_usage([chosen], query_id=before.query_id)
    after = index.search("how much money do we owe songwriters this quarter", limit=20)
    assert after.ids().index(chosen) < before.ids().index(chosen)
    assert "feedback" in after.hits[after.ids().index(chosen)].explanation.signals
    unrelated = index.search("which territories is a release available in", limit=20)
    assert all("feedback" not in h.explanation.signals for h in unrelated.hits)
    assert not index.record_usage(["x"], query_id="unknown")
