"""T_MEM_MINSCORE's calibration: the desk's default cut-off separates relevant from irrelevant memories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from guards.embedding import Embedder
from pipeline.core.settings import Settings

CASES = yaml.safe_load(Path(__file__).with_name("calibration_cases.yaml").read_text())
GRID = np.round(np.arange(0.05, 0.61, 0.025), 3)
#: The default the desk ships, as declared: not `Settings()`, which a developer's .env or
#: environment could move, so the test would then judge their value instead of the default.
DEFAULT_CUT = float(Settings.model_fields["t_mem_minscore"].default)


@pytest.fixture(scope="module")
def scores(embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    memories, queries = CASES["memories"], CASES["queries"]
    similarity = embedder.embed([q["text"] for q in queries]) @ embedder.embed([m["text"] for m in memories]).T
    relevant = np.array([[q["topic"] == m["topic"] for m in memories] for q in queries])
    return similarity[relevant], similarity[~relevant]


def _youden(relevant: np.ndarray, irrelevant: np.ndarray, cut: float) -> float:
    return float((relevant >= cut).mean() - (irrelevant >= cut).mean())


def test_default_cut_off_is_near_the_best(scores: tuple[np.ndarray, np.ndarray]) -> None:
    best = max(_youden(*scores, cut) for cut in GRID)
    assert _youden(*scores, DEFAULT_CUT) >= best - 0.05


def test_default_cut_off_keeps_most_relevant_memories(scores: tuple[np.ndarray, np.ndarray]) -> None:
    relevant, irrelevant = scores
    assert (relevant >= DEFAULT_CUT).mean() >= 0.8
    assert (irrelevant >= DEFAULT_CUT).mean() <= 0.25
