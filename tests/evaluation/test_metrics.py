"""Ranking metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from schemaseek.evaluation.metrics import (
    METRIC_NAMES,
    aggregate,
    all_gold_at,
    hit_at,
    ndcg_at,
    question_metrics,
    recall_at,
    reciprocal_rank,
)

RANKED = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]


def test_recall_counts_the_share_of_gold_in_the_top_k() -> None:
    assert recall_at(RANKED, {"a", "c", "k"}, 1) == pytest.approx(1 / 3)
    assert recall_at(RANKED, {"a", "c", "k"}, 5) == pytest.approx(2 / 3)
    assert recall_at(RANKED, {"a", "c", "k"}, 20) == 1.0
    assert recall_at(RANKED, {"z"}, 20) == 0.0


def test_all_gold_needs_every_gold_id() -> None:
    assert all_gold_at(RANKED, {"a", "j"}, 10) == 1.0
    assert all_gold_at(RANKED, {"a", "k"}, 10) == 0.0
    assert all_gold_at(RANKED, {"a", "k"}, 11) == 1.0


def test_hit_needs_any_gold_id() -> None:
    assert hit_at(RANKED, {"b", "z"}, 1) == 0.0
    assert hit_at(RANKED, {"b", "z"}, 2) == 1.0
    assert hit_at([], {"b"}, 10) == 0.0


def test_reciprocal_rank_uses_the_first_gold_id() -> None:
    assert reciprocal_rank(RANKED, {"c", "d"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(RANKED, {"a"}) == 1.0
    assert reciprocal_rank(RANKED, {"z"}) == 0.0


def test_ndcg_two_gold_at_ranks_one_and_three() -> None:
    expected = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at(RANKED, {"a", "c"}, 10) == pytest.approx(expected)


def test_ndcg_ideal_is_capped_at_k_and_perfect_is_one() -> None:
    assert ndcg_at(RANKED, {"a", "b"}, 10) == pytest.approx(1.0)
    many = set(RANKED)  # 12 gold, ideal is 10 ones
    assert ndcg_at(RANKED, many, 10) == pytest.approx(1.0)
    # one gold at rank 2: (1/log2(3)) / 1
    assert ndcg_at(RANKED, {"b"}, 10) == pytest.approx(1 / math.log2(3))
    assert ndcg_at(RANKED, {"k"}, 10) == 0.0


def test_duplicates_in_the_ranking_count_once() -> None:
    ranked = ["a", "a", "a", "b"]
    assert recall_at(ranked, {"b"}, 2) == 1.0
    assert reciprocal_rank(ranked, {"b"}) == pytest.approx(1 / 2)


def test_empty_gold_is_an_error_per_question() -> None:
    with pytest.raises(ValueError, match="gold is empty"):
        recall_at(RANKED, set(), 5)


def test_question_metrics_has_every_name() -> None:
    values = question_metrics(RANKED, {"b", "l"})
    assert tuple(values) == METRIC_NAMES
    assert values["recall@5"] == 0.5
    assert values["recall@20"] == 1.0
    assert values["all_gold@10"] == 0.0
    assert values["hit@1"] == 0.0
    assert values["hit@5"] == 1.0
    assert values["mrr"] == 0.5


def test_aggregate_means_and_skips_empty_gold() -> None:
    summary = aggregate(
        [
            (["a", "b"], {"a"}),  # perfect
            (["x", "b"], {"b", "c"}),  # half found, first at rank 2
            (["a"], set()),  # skipped
        ]
    )
    assert summary.scored == 2
    assert summary.skipped == 1
    assert summary.metrics["recall@5"] == pytest.approx((1.0 + 0.5) / 2)
    assert summary.metrics["all_gold@10"] == pytest.approx(0.5)
    assert summary.metrics["hit@1"] == pytest.approx(0.5)
    assert summary.metrics["mrr"] == pytest.approx((1.0 + 0.5) / 2)
    second = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert summary.metrics["ndcg@10"] == pytest.approx((1.0 + second) / 2)


def test_aggregate_of_nothing_is_zero() -> None:
    summary = aggregate([])
    assert summary.scored == 0
    assert set(summary.metrics.values()) == {0.0}
