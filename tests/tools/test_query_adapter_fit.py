"""Fitting the question adapter: the gradient is the loss's, and a fitted map carries to
questions it was not fitted on."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _fit_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "query_adapter_fit", TOOLS / "query_adapter_fit.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["query_adapter_fit"] = module
    spec.loader.exec_module(module)
    return module


def _unit(rows: np.ndarray) -> np.ndarray:
    unit: np.ndarray = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return unit


def test_gradient_matches_finite_differences() -> None:
    fit = _fit_module()
    rng = np.random.default_rng(5)
    groups = [
        fit.group(
            _unit(rng.standard_normal((4, 6))),
            _unit(rng.standard_normal((7, 6))),
            [[0], [1, 2], [], [6]],
        ),
        fit.group(
            _unit(rng.standard_normal((3, 6))), _unit(rng.standard_normal((5, 6))), [[4], [0], [3]]
        ),
    ]
    assert len(groups[0].questions) == 3  # the question with no gold is dropped
    point = 0.1 * rng.standard_normal(36)
    _, gradient = fit.loss_and_gradient(point, groups, 20.0, 0.05)
    step = 1e-6
    for i in rng.choice(36, size=8, replace=False):
        bump = np.zeros(36)
        bump[i] = step
        up, _ = fit.loss_and_gradient(point + bump, groups, 20.0, 0.05)
        down, _ = fit.loss_and_gradient(point - bump, groups, 20.0, 0.05)
        assert abs((up - down) / (2 * step) - gradient[i]) < 1e-5


def _rotated_questions(
    rng: np.random.Generator, docs: np.ndarray, turn: np.ndarray, n: int
) -> tuple[np.ndarray, list[list[int]]]:
    """Questions whose gold is one document, seen through a fixed distortion ``turn``."""
    gold = rng.integers(0, len(docs), size=n)
    questions = _unit((docs[gold] + 0.35 * rng.standard_normal(docs[gold].shape)) @ turn)
    return questions, [[int(g)] for g in gold]


def _mrr(
    questions: np.ndarray, docs: np.ndarray, gold: list[list[int]], matrix: np.ndarray
) -> float:
    scores = _unit(questions @ matrix) @ docs.T
    ranks = [(scores[i] > scores[i, g[0]]).sum() + 1 for i, g in enumerate(gold)]
    return float(np.mean([1.0 / r for r in ranks]))


def test_fitted_map_undoes_a_distortion_on_unseen_questions_and_documents() -> None:
    fit = _fit_module()
    rng = np.random.default_rng(11)
    dim = 16
    turn = np.linalg.qr(rng.standard_normal((dim, dim)))[0] * 0.6 + np.eye(dim) * 0.4
    train_docs = _unit(rng.standard_normal((40, dim)))
    test_docs = _unit(rng.standard_normal((40, dim)))  # another "schema"
    questions, gold = _rotated_questions(rng, train_docs, turn, 300)
    fitted = fit.fit([fit.group(questions, train_docs, gold)], penalty=1e-4, iterations=300)
    held_q, held_gold = _rotated_questions(rng, test_docs, turn, 200)
    before = _mrr(held_q, test_docs, held_gold, np.eye(dim))
    after = _mrr(held_q, test_docs, held_gold, fitted)
    assert after > before + 0.1, (before, after)
