"""Fusion: hand-computed RRF and weighted-sum values, keyset paging."""

from __future__ import annotations

import pytest

from schemaseek.query.fusion import NamedSignal, reciprocal_rank_fusion, top_k, weighted_sum


def test_rrf_matches_hand_computed_values() -> None:
    keyword = NamedSignal("keyword", [("a", 9.0), ("b", 5.0), ("c", 1.0)])
    vector = NamedSignal("vector", [("b", 0.9), ("d", 0.8)])
    fused = reciprocal_rank_fusion([keyword, vector], k=25)
    assert fused["a"] == pytest.approx(1 / 26)
    assert fused["b"] == pytest.approx(1 / 27 + 1 / 26)
    assert fused["c"] == pytest.approx(1 / 28)
    assert fused["d"] == pytest.approx(1 / 27)
    assert [d for d, _ in top_k(fused, 4)] == ["b", "a", "d", "c"]


def test_rrf_weights_and_zero_weight() -> None:
    keyword = NamedSignal("keyword", [("a", 1.0)], weight=2.0)
    glossary = NamedSignal("glossary", [("b", 1.0)], weight=0.0)
    fused = reciprocal_rank_fusion([keyword, glossary], k=10)
    assert fused == {"a": pytest.approx(2 / 11)}


def test_rrf_counts_duplicates_once_at_best_rank() -> None:
    fused = reciprocal_rank_fusion([NamedSignal("s", [("a", 2.0), ("a", 1.0)])], k=1)
    assert fused["a"] == pytest.approx(1 / 2)


def test_rrf_rejects_non_positive_k() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([], k=0)


def test_weighted_sum_normalises_each_signal() -> None:
    keyword = NamedSignal("keyword", [("a", 10.0), ("b", 6.0), ("c", 2.0)], weight=0.4)
    vector = NamedSignal("vector", [("c", 0.9), ("a", 0.5)], weight=0.6)
    fused = weighted_sum([keyword, vector])
    assert fused["a"] == pytest.approx(0.4 * 1.0 + 0.6 * 0.0)
    assert fused["b"] == pytest.approx(0.4 * 0.5)
    assert fused["c"] == pytest.approx(0.4 * 0.0 + 0.6 * 1.0)


def test_weighted_sum_constant_signal_maps_to_one() -> None:
    assert weighted_sum([NamedSignal("g", [("x", 3.0), ("y", 3.0)])]) == {"x": 1.0, "y": 1.0}


def test_weighted_sum_takes_scaled_signals_as_they_are() -> None:
    curated = NamedSignal("glossary", [("x", 2.0), ("y", 0.5)], weight=1.5, scaled=True)
    keyword = NamedSignal("keyword", [("y", 8.0), ("z", 4.0)])
    fused = weighted_sum([curated, keyword])
    assert fused["x"] == pytest.approx(1.5 * 2.0)  # not squeezed to 1.0
    assert fused["y"] == pytest.approx(1.5 * 0.5 + 1.0)
    assert fused["z"] == pytest.approx(0.0)
    same = NamedSignal("glossary", [("x", 0.5), ("y", 0.5)], scaled=True)
    assert weighted_sum([same]) == {"x": 0.5, "y": 0.5}


def test_top_k_orders_ties_by_id_and_pages_with_keyset_cursor() -> None:
    scores = {"b": 1.0, "a": 1.0, "c": 2.0, "d": 0.5}
    first = top_k(scores, 2)
    assert first == [("c", 2.0), ("a", 1.0)]
    last_id, last_score = first[-1]
    assert top_k(scores, 2, after=(last_score, last_id)) == [("b", 1.0), ("d", 0.5)]
    assert top_k(scores, 0) == []


def test_weighted_sum_window_keeps_the_leaders_scores_whatever_the_depth() -> None:
    shallow = NamedSignal("keyword", [("a", 10.0), ("b", 8.0), ("c", 6.0)])
    deep = NamedSignal("keyword", [("a", 10.0), ("b", 8.0), ("c", 6.0), ("d", 2.0), ("e", 1.0)])
    assert weighted_sum([shallow], window=3) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert weighted_sum([deep], window=3) == {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0, "e": 0.0}
    # without a window the range runs to the last entry, so depth moves every score
    assert weighted_sum([deep])["b"] == pytest.approx(7 / 9)


def test_weighted_sum_min_span_widens_a_narrow_range() -> None:
    close = NamedSignal("vector", [("a", 0.50), ("b", 0.48)], min_span=0.2)
    fused = weighted_sum([close])
    assert fused["a"] == pytest.approx(1.0)
    assert fused["b"] == pytest.approx(0.9)  # not 0.0: 0.02 of cosine is not the whole scale
