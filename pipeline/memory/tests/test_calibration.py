"""T_MEM_MINSCORE's calibration: the recorded cut-off separates relevant from irrelevant memories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from guards.embedding import Embedder

CASES = yaml.safe_load(Path(__file__).with_name("calibration_cases.yaml").read_text())
GRID = np.round(np.arange(0.05, 0.61, 0.025), 3)


@pytest.fixture(scope="module")
def scores(embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    memories, queries = CASES["memories"], CASES["queries"]
    similarity = embedder.embed([q["text"] for q in queries]) @ embedder.embed([m["text"] for m in memories]).T
    relevant = np.array([[q["topic"] == m["topic"] for m in memories] for q in queries])
    return similarity[relevant], similarity[~relevant]


def _youden(relevant: np.ndarray, irrelevant: np.ndarray, cut: float) -> float:
    return float((relevant >= cut).mean() - (irrelevant >= cut).mean())


def test_recorded_cut_off_is_near_the_best(scores: tuple[np.ndarray, np.ndarray]) -> None:
    best = max(_youden(*scores, cut) for cut in GRID)
    assert _youden(*scores, CASES["calibrated_min_score"]) >= best - 0.05


def test_recorded_cut_off_keeps_most_relevant_memories(scores: tuple[np.ndarray, np.ndarray]) -> None:
    relevant, irrelevant = scores
    cut = CASES["calibrated_min_score"]
    assert (relevant >= cut).mean() >= 0.8
    assert (irrelevant >= cut).mean() <= 0.25
