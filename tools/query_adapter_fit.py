"""Fitting the question adapter (schemaseek.embedding.query_adapter): numpy and scipy only.

Each labelled question brings its vector, the vectors of every candidate of one kind in its
schema (all root fields, or all types) and which of them are gold. With ``W = I + A`` and
``v = normalize(q @ W)``, the loss is the negative log of the softmax mass (``scale`` × cosine)
that lands on the gold set, averaged over questions, plus ``penalty`` × ‖A‖² pulling the map
back to the identity. scipy's L-BFGS minimises it with the analytic gradient below.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize
from scipy.special import logsumexp

Matrix = npt.NDArray[np.float64]

SCALE = 20.0
"""Softmax scale on the cosine (a temperature of 0.05, sentence-transformers' usual)."""
PENALTY = 0.03
"""Weight of ‖W − I‖²: chosen leave one schema out among 0.003–1 (bench/QUALITY.md)."""
ITERATIONS = 200


@dataclass(frozen=True, slots=True)
class Group:
    """Questions that share a candidate set: ``questions`` (n × d), ``candidates`` (m × d),
    ``gold`` (n × m booleans, at least one per row)."""

    questions: Matrix
    candidates: Matrix
    gold: npt.NDArray[np.bool_]


def group(questions: Matrix, candidates: Matrix, gold: Sequence[Sequence[int]]) -> Group:
    """A group of the questions that have gold candidates (the others are dropped)."""
    keep = [i for i, rows in enumerate(gold) if rows]
    mask = np.zeros((len(keep), len(candidates)), dtype=bool)
    for row, i in enumerate(keep):
        mask[row, list(gold[i])] = True
    q = np.asarray(questions, dtype=np.float64)[keep]
    return Group(q, np.asarray(candidates, dtype=np.float64), mask)


def loss_and_gradient(
    flat: Matrix, groups: Sequence[Group], scale: float, penalty: float
) -> tuple[float, Matrix]:
    """The objective at ``A`` (flattened) and its gradient."""
    dim = groups[0].questions.shape[1]
    delta = flat.reshape(dim, dim)
    mapping = np.eye(dim) + delta
    total, gradient = 0.0, np.zeros_like(mapping)
    count = sum(len(g.questions) for g in groups)
    for g in groups:
        mapped = g.questions @ mapping
        norm = np.linalg.norm(mapped, axis=1, keepdims=True)
        unit = mapped / norm
        logits = scale * unit @ g.candidates.T
        every = logsumexp(logits, axis=1, keepdims=True)
        on_gold = logsumexp(np.where(g.gold, logits, -np.inf), axis=1, keepdims=True)
        total += float((every - on_gold).sum())  # -log(softmax mass on the gold set)
        prob = np.exp(logits - every)
        target = np.where(g.gold, np.exp(logits - on_gold), 0.0)  # the softmax within gold
        d_unit = scale * (prob - target) @ g.candidates
        d_mapped = (d_unit - (d_unit * unit).sum(axis=1, keepdims=True) * unit) / norm
        gradient += g.questions.T @ d_mapped
    value = total / count + penalty * float((delta * delta).sum())
    return value, (gradient / count + 2.0 * penalty * delta).ravel()


def fit(
    groups: Sequence[Group],
    *,
    scale: float = SCALE,
    penalty: float = PENALTY,
    iterations: int = ITERATIONS,
) -> Matrix:
    """The fitted ``W`` (d × d), starting from the identity."""
    if not groups:
        raise ValueError("no labelled questions to fit on")
    dim = groups[0].questions.shape[1]
    result = minimize(
        loss_and_gradient,
        np.zeros(dim * dim),
        args=(groups, scale, penalty),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": iterations},
    )
    fitted: Matrix = np.eye(dim) + np.asarray(result.x).reshape(dim, dim)
    return fitted
