"""Held-out figures: Wilson intervals, out-of-fold scores, leave-one-source-out, the threshold.

Nothing here looks at held-out data to choose anything: the threshold comes from out-of-fold
scores of the training data (`calibrate`), and each public source is scored by a model trained
without it (`leave_one_source_out`).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from guards.classifier.features import Features, Floats
from guards.classifier.logreg import FitParams, fit, probabilities
from pipeline.core.intervals import wilson

FOLDS = 3


@dataclass(frozen=True)
class Rate:
    hits: int
    n: int

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else float("nan")

    def wilson(self) -> tuple[float, float]:
        return wilson(self.hits, self.n) if self.n else (float("nan"), float("nan"))

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.hits + other.hits, self.n + other.n)

    def show(self) -> str:
        low, high = self.wilson()
        return f"{self.value:.1%} ({self.hits}/{self.n}; 95% CI {low:.1%}–{high:.1%})"


def rate(flags: Sequence[bool]) -> Rate:
    return Rate(int(sum(flags)), len(flags))


def balanced_weights(labels: npt.NDArray[np.int64], boost: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each class weighs the same in total; `boost` multiplies some rows (the desk's own texts)."""
    w = boost.astype(np.float64).copy()
    for label in (0, 1):
        mask = labels == label
        w[mask] *= len(labels) / (2 * max(w[mask].sum(), 1e-9))
    return w


def per_source(labels: npt.NDArray[np.int64], sources: Sequence[str], boost: Callable[[str], float]
               ) -> npt.NDArray[np.float64]:
    """Row weights under which each source's texts of one class weigh `boost(source)` in total.

    Without it the largest public sets (1,100 Gandalf or JailbreakBench prompts against 32 from
    Giskard) set the class's style, and a source held out reads as unlike it. Held out, this took
    the Judge from 74.5% to 76.3% of attacks blocked and the Guardrail's off-topic share from 48.5%
    to 54.6%, with fewer false blocks in both (evals/JOURNAL.md, "Every source of a class weighs the same").
    """
    keys = list(zip(sources, labels.tolist(), strict=True))
    sizes = Counter(keys)
    return np.array([boost(s) / sizes[(s, label)] for s, label in keys], dtype=np.float64)


def fold_of(texts: Sequence[str], folds: int = FOLDS) -> npt.NDArray[np.int64]:
    return np.array([int(hashlib.sha256(t.encode()).hexdigest()[:8], 16) % folds for t in texts])


def out_of_fold(features: Features, labels: npt.NDArray[np.int64], weights: npt.NDArray[np.float64],
                texts: Sequence[str], params: FitParams) -> Floats:
    """Each training text scored by a model fitted on the other folds."""
    folds = fold_of(texts)
    out = np.zeros(len(texts), dtype=np.float32)
    for k in range(FOLDS):
        train, held = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        w = fit(features.take(train), labels[train], weights[train], params)
        out[held] = probabilities(w, features.take(held), params.dense_scale, params.hidden)
    return out


def calibrate(oof: Floats, groups: dict[str, tuple[npt.NDArray[np.bool_], float]]) -> tuple[float, str]:
    """The lowest threshold keeping each benign group's out-of-fold false-block rate at its target.

    `groups`: name -> (rows of benign texts, highest allowed false-block rate).
    """
    cuts = []
    for name, (mask, target) in groups.items():
        scores = np.sort(oof[mask])[::-1]
        allowed = math.floor(target * len(scores))
        cuts.append((float(scores[allowed]) + 1e-6 if allowed < len(scores) else 0.0, name, target))
    cut, name, target = max(cuts)
    rule = "; ".join(f"{n}: out-of-fold false blocks <= {t:.1%}" for _, n, t in sorted(cuts, key=lambda c: c[1]))
    return min(cut, 0.999), f"lowest threshold meeting every target ({rule}); binding: {name}"


def leave_one_source_out(features: Features, labels: npt.NDArray[np.int64], weights: npt.NDArray[np.float64],
                         sources: Sequence[str], held: Sequence[str], params: FitParams,
                         on_fold: Callable[[str], None] = lambda _s: None) -> dict[str, Floats]:
    """For each source in `held`: its texts scored by a model trained on every other source."""
    src = np.array(sources)
    out = {}
    for source in held:
        on_fold(source)
        train, test = np.flatnonzero(src != source), np.flatnonzero(src == source)
        w = fit(features.take(train), labels[train], weights[train], params)
        out[source] = probabilities(w, features.take(test), params.dense_scale, params.hidden)
    return out
