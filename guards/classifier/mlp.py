"""A one-hidden-layer head over the embedding beside the linear n-gram columns, in numpy.

logit = w2 · relu(W1ᵀ e + b1) + ws · ngrams + b. The hidden layer lets the embedding carve a
topic region (a shop customer's turn) that one hyperplane cannot; the n-grams stay linear.
Full-batch Adam from a seeded initialisation: the same data give the same weights every run.
Weights are one flat float vector: W1 (dims x hidden), b1, w2, the n-gram buckets, the bias.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from guards.classifier.features import Features, Floats

Weights = npt.NDArray[np.float64]
SEED = 20261201


def size(dims: int, width: int, hidden: int) -> int:
    return dims * hidden + 2 * hidden + width + 1


def _unpack(weights: Weights, dims: int, hidden: int) -> tuple[Weights, Weights, Weights, Weights, float]:
    a = dims * hidden
    return (weights[:a].reshape(dims, hidden), weights[a:a + hidden], weights[a + hidden:a + 2 * hidden],
            weights[a + 2 * hidden:-1], float(weights[-1]))


def _sparse_dot(features: Features, ws: Weights) -> npt.NDArray[np.float64]:
    s = features.sparse
    return np.asarray(np.bincount(s.row_ids(), weights=s.vals * ws[s.cols], minlength=s.rows), np.float64)


def logits(weights: Weights, features: Features, dense_scale: float, hidden: int) -> npt.NDArray[np.float64]:
    dense = features.dense.astype(np.float64) * dense_scale
    w1, b1, w2, ws, b = _unpack(weights, dense.shape[1], hidden)
    return np.maximum(dense @ w1 + b1, 0.0) @ w2 + _sparse_dot(features, ws) + b


def probabilities(weights: Weights, features: Features, dense_scale: float, hidden: int) -> Floats:
    return (1.0 / (1.0 + np.exp(-logits(weights, features, dense_scale, hidden)))).astype(np.float32)


def fit(features: Features, labels: npt.NDArray[np.int64], sample_weight: npt.NDArray[np.float64],
        l2: float, steps: int, learning_rate: float, dense_scale: float, hidden: int) -> Weights:
    dense = features.dense.astype(np.float64) * dense_scale
    dims, s = dense.shape[1], features.sparse
    rows, cols, vals = s.row_ids(), s.cols, s.vals.astype(np.float64)
    rng = np.random.default_rng(SEED)
    weights = np.zeros(size(dims, s.width, hidden), dtype=np.float64)
    weights[:dims * hidden] = rng.normal(0.0, np.sqrt(2.0 / max(dims, 1)), dims * hidden)
    weights[dims * hidden + hidden:dims * hidden + 2 * hidden] = rng.normal(0.0, 0.1 / np.sqrt(hidden), hidden)
    m, v = np.zeros_like(weights), np.zeros_like(weights)
    sw = sample_weight / sample_weight.sum()
    for step in range(1, steps + 1):
        w1, b1, w2, ws, b = _unpack(weights, dims, hidden)
        h = np.maximum(dense @ w1 + b1, 0.0)
        z = h @ w2 + np.bincount(rows, weights=vals * ws[cols], minlength=s.rows) + b
        r = (1.0 / (1.0 + np.exp(-z)) - labels) * sw
        dh = np.outer(r, w2) * (h > 0)
        grad = np.concatenate([(dense.T @ dh).ravel(), dh.sum(0), h.T @ r,
                               np.bincount(cols, weights=vals * r[rows], minlength=s.width), [r.sum()]])
        grad[:-1] += l2 * weights[:-1]
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        weights -= learning_rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return weights
